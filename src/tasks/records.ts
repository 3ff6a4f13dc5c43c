/**
 * What keeps a task's record within the platform's limits and its secrets write-only:
 * - large values (a request body of up to 4 MiB, a unit's geometry) go to R2 (the DATA bucket, keys under
 *   `_tasks/<task id>/`) and the Durable Object row keeps a reference: a SQLite row of a Durable Object holds at most
 *   2 MB in production (local workerd accepts more, so only this size rule keeps it), and every value above
 *   {@link INLINE_MAX_BYTES} is stored this way;
 * - the `secretAccessKey` of every object-storage descriptor of a request is taken out before the request is stored
 *   (the stored request, every view and list of it never hold one) and kept apart, only while the task needs it.
 */
import type { Env } from "../env";

/** Largest value kept in a Durable Object row (bytes of its JSON); larger ones go to R2. */
export const INLINE_MAX_BYTES = 256 * 1024;

/** Prefix of a stored value kept in R2: the rest is its key in the DATA bucket. */
const IN_R2 = "r2:";

/**
 * The text to store for `value` (its JSON, or a reference to R2 key `key` where the JSON was written when it is larger
 * than INLINE_MAX_BYTES).
 */
export async function storeValue(env: Pick<Env, "DATA">, key: string, value: unknown): Promise<string> {
  const text = JSON.stringify(value);
  if (text.length <= INLINE_MAX_BYTES / 4 || new TextEncoder().encode(text).length <= INLINE_MAX_BYTES) return text;
  await env.DATA.put(key, text, { httpMetadata: { contentType: "application/json" } });
  return IN_R2 + key;
}

/** The value `stored` by {@link storeValue}. @throws Error when its R2 object is gone. */
export async function loadValue<T>(env: Pick<Env, "DATA">, stored: string): Promise<T> {
  if (!stored.startsWith(IN_R2)) return JSON.parse(stored) as T;
  const object = await env.DATA.get(stored.slice(IN_R2.length));
  if (!object) throw new Error(`task record: ${stored.slice(IN_R2.length)} is missing from R2`);
  return (await object.json()) as T;
}

/** Units' data stored by {@link storeValue} (keys `unit-<id>`): [id, stored data] pairs. */
export function storeUnits(
  env: Pick<Env, "DATA">,
  taskId: string,
  units: readonly { id: string; data: unknown }[],
): Promise<(readonly [string, string])[]> {
  return Promise.all(
    units.map(async (u) => [u.id, await storeValue(env, valueKey(taskId, `unit-${u.id}`), u.data)] as const),
  );
}

/** The R2 key of a task's stored value `name`. */
export const valueKey = (taskId: string, name: string): string => `_tasks/${taskId}/${name}.json`;

/** The secret member of a descriptor, kept apart. */
const SECRET = "secretAccessKey";

/** Secrets by the path (`a.b.0.c`) of the object they were taken from. */
export type Secrets = Record<string, string>;

/** `value` without any `secretAccessKey` member, and the secrets taken out by path. */
export function withoutSecrets<T>(value: T): { value: T; secrets: Secrets } {
  const secrets: Secrets = {};
  const walk = (v: unknown, path: string): unknown => {
    if (Array.isArray(v)) return v.map((x, i) => walk(x, `${path}${i}.`));
    if (v === null || typeof v !== "object") return v;
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) {
      if (k === SECRET && typeof x === "string") secrets[path] = x;
      else out[k] = walk(x, `${path}${k}.`);
    }
    return out;
  };
  return { value: walk(value, "") as T, secrets };
}

/** `value` with the secrets of {@link withoutSecrets} put back where they were. */
export function withSecrets<T>(value: T, secrets: Secrets): T {
  const copy = structuredClone(value) as Record<string, unknown>;
  for (const [path, secret] of Object.entries(secrets)) {
    let at: Record<string, unknown> | undefined = copy;
    for (const k of path.split(".").filter(Boolean)) at = at?.[k] as Record<string, unknown> | undefined;
    if (at && typeof at === "object") at[SECRET] = secret;
  }
  return copy as T;
}
