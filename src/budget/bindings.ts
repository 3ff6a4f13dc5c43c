/**
 * The counting wrapper: the Worker's bindings and `fetch()` with every call counted into the Meter of the running
 * invocation (src/budget/meter.ts). Applied once at the Worker entry (src/index.ts: `fetch`, `queue`, `scheduled`
 * run under runMetered with `meteredEnv(env)`), so every layer below counts without knowing it:
 * - D1 (`D1Database`, its sessions): a statement's `first` / `all` / `run` / `raw` is one subrequest and one
 *   query; `batch` one subrequest and one query per statement; `exec` one of each;
 * - R2 (`R2Bucket`): every method but `resumeMultipartUpload` (which makes no call), and the calls of the
 *   multipart upload it returns;
 * - Durable Objects: every call (fetch or RPC) of a stub from `get` / `getByName`;
 * - Worker Loader: every call of an entrypoint of a loaded worker (`getEntrypoint`); calls on stubs those calls
 *   return (an open evalscript session's rows) ride on their call and are not counted;
 * - Queues (`send`, `sendBatch`) and service bindings (`Fetcher`, e.g. ASSETS): each call;
 * - `fetch()`: the global is replaced once per isolate by a counting one (any module's upstream HTTP read is counted
 *   without knowing of this one); outside an invocation (module scope) it counts nothing.
 * Bindings are recognised by their class (constructor name), since a Fetcher answers every property name. The
 * wrappers are made once per binding object and kept (WeakMap), so per-isolate caches keyed by a binding keep
 * one entry; calls go to the real object with its own `this` (native methods refuse a Proxy as `this`).
 */
import { currentMeter, type SubrequestKind } from "./meter";

type AnyFn = (...args: unknown[]) => unknown;

/**
 * `fn` bound to `self`, without touching `fn`'s own properties: an RPC stub's method answers every property name
 * (its `.bind` / `.apply` would be remote calls), so this goes through Reflect.
 */
const bound =
  (fn: unknown, self: object): AnyFn =>
  (...args: unknown[]) =>
    Reflect.apply(fn as AnyFn, self, args);

/** Runs `call` counted as `kind` in the current invocation's Meter (uncounted outside one). */
function counted<T>(kind: SubrequestKind, call: () => T, queries = 0): T {
  const meter = currentMeter();
  return meter ? meter.track(kind, call, queries) : call();
}

/**
 * A Proxy of `target` whose methods named by `isCall` are counted as `kind`, and whose methods named in `wrapResult`
 * have their result wrapped (results may be promises). Other properties pass through; methods run on `target`.
 */
function proxy<T extends object>(
  target: T,
  kind: SubrequestKind,
  isCall: (prop: string) => boolean,
  wrapResult: Record<string, (value: never) => unknown> = {},
  queriesOf: (prop: string, args: unknown[]) => number = () => 0,
): T {
  return new Proxy(target, {
    get(t, prop) {
      const value = Reflect.get(t, prop, t) as unknown;
      if (typeof value !== "function") return value;
      if (typeof prop !== "string" || prop === "then") return bound(value, t);
      const wrap = wrapResult[prop] as ((v: unknown) => unknown) | undefined;
      const fn = bound(value, t);
      return (...args: unknown[]) => {
        const run = () => fn(...args);
        const out = isCall(prop) ? counted(kind, run, queriesOf(prop, args)) : run();
        if (!wrap) return out;
        return out instanceof Promise ? out.then(wrap) : wrap(out);
      };
    },
  });
}

const ALL = () => true;

/** The real statements behind counted ones (D1's batch needs its own statement objects). */
const statements = new WeakMap<object, D1PreparedStatement>();

/** A counted D1 statement: executing methods count one query; `bind` gives a counted statement. */
function statement(s: D1PreparedStatement): D1PreparedStatement {
  const p = proxy(
    s,
    "d1",
    (m) => m === "first" || m === "all" || m === "run" || m === "raw",
    { bind: statement },
    () => 1,
  );
  statements.set(p, s);
  return p;
}

/** A counted D1 database or session: `prepare` gives counted statements; `batch` and `exec` are counted calls. */
function d1<T extends D1Database | D1DatabaseSession>(db: T): T {
  return new Proxy(db, {
    get(t, prop) {
      const value = Reflect.get(t, prop, t) as unknown;
      if (typeof value !== "function") return value;
      const fn = bound(value, t);
      if (prop === "prepare") return (sql: string) => statement(fn(sql) as D1PreparedStatement);
      if (prop === "withSession") return (...args: unknown[]) => d1(fn(...args) as D1DatabaseSession);
      if (prop === "batch")
        return (list: D1PreparedStatement[]) =>
          counted("d1", () => fn(list.map((s) => statements.get(s) ?? s)), list.length);
      if (prop === "exec") return (sql: string) => counted("d1", () => fn(sql), 1);
      return fn;
    },
  });
}

/** A counted RPC or fetch stub (Durable Object, service, loaded worker): every call counts, `then` excepted. */
const stub =
  <T extends object>(kind: SubrequestKind) =>
  (s: T): T =>
    proxy(s, kind, ALL);

/** A counted R2 multipart upload. */
const upload = (u: R2MultipartUpload): R2MultipartUpload =>
  proxy(u, "r2", (m) => m === "uploadPart" || m === "abort" || m === "complete");

/** A counted R2 bucket. */
const r2 = (b: R2Bucket): R2Bucket =>
  proxy(b, "r2", (m) => m !== "resumeMultipartUpload", {
    createMultipartUpload: upload,
    resumeMultipartUpload: upload,
  });

/** A counted Durable Object namespace: its stubs count their calls; ids and names make no call. */
const durableObjects = (ns: DurableObjectNamespace): DurableObjectNamespace =>
  proxy(ns, "durable-object", () => false, { get: stub("durable-object"), getByName: stub("durable-object") });

/** A counted Worker Loader: calls of a loaded worker's entrypoints count. */
const loader = (l: WorkerLoader): WorkerLoader => {
  const worker = (w: WorkerStub): WorkerStub =>
    proxy(w, "worker-loader", () => false, { getEntrypoint: stub("worker-loader") });
  return proxy(l, "worker-loader", () => false, { get: worker, load: worker });
};

/** The counted wrapper of one binding, by its class; undefined for values that are no binding (strings, JSON). */
function wrapBinding(value: object): object | undefined {
  switch (value.constructor?.name) {
    case "D1Database":
      return d1(value as D1Database);
    case "R2Bucket":
      return r2(value as R2Bucket);
    case "DurableObjectNamespace":
      return durableObjects(value as DurableObjectNamespace);
    case "WorkerLoader":
      return loader(value as WorkerLoader);
    case "WorkerQueue":
      return proxy(value, "queue", (m) => m === "send" || m === "sendBatch");
    case "Fetcher":
      return stub("service")(value);
    default:
      return undefined;
  }
}

const wrapped = new WeakMap<object, object>();

/** The counted wrapper of `value` (made once per binding object), or `value` itself when it is no binding. */
function meteredBinding(value: unknown): unknown {
  if (typeof value !== "object" || value === null) return value;
  let w = wrapped.get(value);
  if (w === undefined) wrapped.set(value, (w = wrapBinding(value) ?? value));
  return w;
}

const envs = new WeakMap<object, object>();

/**
 * `env` with every binding counted (see the module docs); the same object for the same `env` (one per isolate).
 * Values that are no binding pass through unchanged.
 */
export function meteredEnv<E extends object>(env: E): E {
  installMeteredFetch();
  let m = envs.get(env) as E | undefined;
  if (!m) {
    m = Object.fromEntries(Object.entries(env).map(([k, v]) => [k, meteredBinding(v)])) as E;
    envs.set(env, m);
  }
  return m;
}

let installed = false;

/** Replaces the global `fetch` by one that counts into the current invocation's Meter (once per isolate). */
export function installMeteredFetch(): void {
  if (installed) return;
  installed = true;
  const real = globalThis.fetch;
  globalThis.fetch = ((input: RequestInfo | URL, init?: RequestInit) =>
    counted("fetch", () => real(input, init))) as typeof fetch;
}
