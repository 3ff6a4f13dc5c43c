/**
 * Sandbox isolates are recycled after a byte budget (sandboxgen.ts: a sandbox isolate kept every heavy
 * request's arrays as garbage and workerd's RSS grew with each): the next lease gets a fresh isolate, a lease in
 * flight keeps the old one until it ends, and evaluations across recycles give the same values.
 */
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { compileEvalscript, loadEvalscript, type EvalInput } from "../../../src/raster/evalscript";
import { isolateName, sandboxFor, scriptHash } from "../../../src/raster/evalscript/host/sandbox";
import { evictIdle, leaseGeneration, poolStats } from "../../../src/raster/evalscript/host/sandboxgen";
import { ones, rkhWindow, RKH_INFO } from "./helpers";

const NDVI = `//VERSION=3
function setup() { return { input: ["B04", "B08"], output: { bands: 1, sampleType: "FLOAT32" } }; }
function evaluatePixel(s) { return [(s.B08 - s.B04) / (s.B08 + s.B04)]; }`;
const budget = { perCall: 1e7, total: 1e9 };

/**
 * The Recycler id of loader name `name` after asking the loader for it with new code (a Recycler answering "loaded
 * again"): that string when the isolate of the name was aborted (the loader loads the new code), else the old
 * isolate's own random id.
 */
async function idAfterLoadingAgain(name: string): Promise<string> {
  const code = `import { WorkerEntrypoint } from "cloudflare:workers";
export default class extends WorkerEntrypoint {}
export class Recycler extends WorkerEntrypoint { id() { return "loaded again"; } }`;
  const again = env.LOADER.get(name, () => ({
    compatibilityDate: "2026-11-01",
    mainModule: "m.js",
    modules: { "m.js": code },
    env: {},
    globalOutbound: null,
  }));
  return (again.getEntrypoint("Recycler") as unknown as { id(): Promise<string> }).id();
}

describe("generations (host bookkeeping)", () => {
  it("a generation past its budget is retired; the release that leaves it idle says to abort it", () => {
    const base = `gen-test-${crypto.randomUUID()}`;
    const a = leaseGeneration(base, 100);
    const b = leaseGeneration(base, 100);
    expect(b.name).toBe(a.name);
    expect(a.release(60)).toBe(false); // 60 < 100
    expect(a.release(1000)).toBe(false); // a second release of one lease counts nothing
    const c = leaseGeneration(base, 100);
    expect(c.name).toBe(a.name);
    expect(c.release(40)).toBe(false); // 100 reached: retired, but b still holds it
    const d = leaseGeneration(base, 100);
    expect(d.name).not.toBe(a.name);
    expect(d.name.startsWith(`${base}:`)).toBe(true);
    expect(b.release(0)).toBe(true); // the last lease of the retired generation
    expect(d.release(10)).toBe(false);
    // the name's generations are numbered in turn: recycling it ten times (the first on d's generation) never hands
    // out a loader name twice
    const names = new Set([a.name, d.name]);
    for (let i = 0; i < 10; i++) {
      const l = leaseGeneration(base, 1);
      l.release(1);
      names.add(l.name);
    }
    expect(names.size).toBe(11);
  });

  it("loader names are deterministic: the isolate name and the generation number, nothing random", () => {
    const base = isolateName("0".repeat(64), `acct-${crypto.randomUUID()}`);
    const first = leaseGeneration(base, 100);
    expect(first.name).toBe(`${base}:0`);
    expect(first.release(100)).toBe(true); // retired and idle
    const second = leaseGeneration(base, 100);
    expect(second.name).toBe(`${base}:1`);
    second.release(0);
  });

  it("a name that fell out of the bookkeeping (1024 names) comes back under a loader name never used before, and its isolate is aborted", async () => {
    const first = `gen-evicted-${crypto.randomUUID()}`;
    const lease = leaseGeneration(first, 1);
    expect(lease.release(1)).toBe(true); // retired and idle: the caller aborts this isolate
    const aborted: string[] = [];
    const abort = async (name: string) => void aborted.push(name);
    const fillers = Array.from({ length: 1100 }, (_, i) =>
      leaseGeneration(`gen-filler-${i}-${crypto.randomUUID()}`, undefined, abort),
    );
    for (const f of fillers) f.release(0);
    expect(leaseGeneration(first, 1).name).not.toBe(lease.name);
    // past 1024 live generations the least recently leased idle ones go, whatever their bytes
    for (const f of evictIdle(Infinity)) await f();
    expect(aborted.slice(0, 3)).toEqual(fillers.slice(0, 3).map((f) => f.name));
    expect(poolStats().generations).toBeLessThanOrEqual(1024);
    for (const f of evictIdle(-1)) await f(); // every idle filler: none left for the tests below
    expect(poolStats().generations).toBeLessThan(10);
  });
});

describe("the pool of live isolates (host bookkeeping)", () => {
  it("past the pool's bytes, idle generations are aborted least recently leased first; one in use never", async () => {
    const aborted: string[] = [];
    const abort = async (name: string) => void aborted.push(name);
    const [x, y, z] = ["x", "y", "z"].map((k) => `pool-${k}-${crypto.randomUUID()}`);
    const base = poolStats().bytes;
    const lx = leaseGeneration(x!, 1e9, abort);
    lx.release(300);
    const ly = leaseGeneration(y!, 1e9, abort);
    ly.release(300);
    expect(evictIdle(base + 600)).toHaveLength(0);
    for (const f of evictIdle(base + 500)) await f();
    expect(aborted).toEqual([lx.name]); // x: leased least recently
    expect(poolStats().bytes).toBe(base + 300);
    const again = leaseGeneration(x!, 1e9, abort);
    expect(again.name).not.toBe(lx.name); // an aborted isolate's name is never leased again
    again.release(0);
    const lz = leaseGeneration(z!, 1e9, abort);
    lz.release(400);
    const inUse = leaseGeneration(z!, 1e9, abort);
    for (const f of evictIdle(base)) await f();
    expect(aborted).toEqual([lx.name, ly.name, again.name]); // z is leased: kept, whatever the bytes
    inUse.release(0);
    for (const f of evictIdle(base)) await f();
    expect(aborted.at(-1)).toBe(lz.name);
    expect(poolStats().bytes).toBe(base);
  });
});

describe("sandbox isolates", () => {
  it("an idle isolate of another script is aborted once the live isolates hold more than the pool's bytes", async () => {
    const sandboxes = await Promise.all(
      [NDVI, `${NDVI}\n// another script`].map(async (src) => {
        const compiled = compileEvalscript(src);
        return sandboxFor(
          env.LOADER,
          compiled,
          `${await scriptHash(compiled)}-${crypto.randomUUID()}`,
          30_000,
          "",
          1e12,
          poolStats().bytes + 100,
        );
      }),
    );
    const a = sandboxes[0]!.acquire();
    const first = await a.isolateId();
    await a.release(80);
    const b = sandboxes[1]!.acquire();
    const other = await b.isolateId();
    await b.release(80); // 160 bytes live: the first script's idle isolate goes
    const a2 = sandboxes[0]!.acquire();
    expect(a2.name).not.toBe(a.name);
    expect(await a2.isolateId()).not.toBe(first);
    expect((await a2.api.setup(budget)).ok).toBe(true);
    await a2.release(0);
    const b2 = sandboxes[1]!.acquire();
    expect(await b2.isolateId()).toBe(other); // the most recently used one stays
    await b2.release(0);
  });

  it("the next lease after the budget gets a fresh isolate; a lease in flight keeps working on the old one", async () => {
    const compiled = compileEvalscript(NDVI);
    const key = `${await scriptHash(compiled)}-${crypto.randomUUID()}`;
    const sandbox = sandboxFor(env.LOADER, compiled, key, 30_000, "", 1000);
    const a = sandbox.acquire();
    const first = await a.isolateId();
    const firstName = a.name;
    const b = sandbox.acquire();
    expect(await b.isolateId()).toBe(first);
    await a.release(1000);
    const c = sandbox.acquire();
    const second = await c.isolateId();
    expect(second).not.toBe(first);
    // b's isolate is retired, not gone: it serves b until b ends
    expect((await b.api.setup(budget)).ok).toBe(true);
    expect(await b.isolateId()).toBe(first);
    await b.release(0); // the last lease of the old isolate: aborted, so the loader no longer knows its name
    expect(await idAfterLoadingAgain(firstName)).toBe("loaded again");
    await c.release(10);
    const d = sandbox.acquire();
    expect(await d.isolateId()).toBe(second); // under the budget: the same isolate
    expect((await d.api.setup(budget)).ok).toBe(true);
    await d.release(0);
  });

  it("an isolate retired by another Worker isolate (same loader name) finishes the session in flight, then is aborted", async () => {
    const compiled = compileEvalscript(NDVI);
    const tenant = `shared-${crypto.randomUUID()}`;
    const name = `${isolateName(await scriptHash(compiled), tenant)}:0`; // what every Worker isolate names it
    const W = 64;
    const bands = await rkhWindow(["B04", "B08"], 500, 400, W, W);
    const whole = await (await loadEvalscript(env, compiled)).evaluate({
      width: W,
      height: W,
      scenes: [{ info: RKH_INFO, bands, dataMask: ones(W * W) }],
    });
    const runtime = await loadEvalscript(env, compiled, {}, tenant, { sandbox: true }); // NDVI would take the host path
    // asked for once the session is open: the isolate is loaded, its code is not asked for
    const other = () =>
      env.LOADER.get(name, () => {
        throw new Error("not loaded");
      }).getEntrypoint("Recycler") as unknown as { recycle(): Promise<void>; id(): Promise<string> };
    const ids: string[] = [];
    const result = await runtime.evaluateRows(
      { width: W, height: W, rows: 16, scenes: [{ info: RKH_INFO }] },
      async (row, rows) => {
        ids.push(await other().id());
        if (row === 16) await other().recycle(); // another Worker isolate retires the name mid-session
        const cut = (a: Float32Array) => a.slice(row * W, (row + rows) * W);
        return [{ info: RKH_INFO, bands: { B04: cut(bands.B04!), B08: cut(bands.B08!) }, dataMask: ones(rows * W) }];
      },
    );
    expect(result.outputs.default!.values).toEqual(whole.outputs.default!.values);
    expect(new Set(ids).size).toBe(1); // every block ran on the one isolate
    // aborted once the session ended (just after its last call answered)
    let after = "";
    for (let i = 0; i < 50 && after !== "loaded again"; i++) {
      await new Promise((r) => setTimeout(r, 20));
      after = await idAfterLoadingAgain(name);
    }
    expect(after).toBe("loaded again");
  });

  describe("evaluations across recycles", () => {
    const W = 64;
    let input: EvalInput;
    beforeAll(async () => {
      input = {
        width: W,
        height: W,
        scenes: [{ info: RKH_INFO, bands: await rkhWindow(["B04", "B08"], 500, 400, W, W), dataMask: ones(W * W) }],
      };
    });

    it("an isolate recycled after every evaluation (whole and in blocks) gives the values of a kept one", async () => {
      const compiled = compileEvalscript(NDVI);
      const kept = await (await loadEvalscript(env, compiled)).evaluate(input);
      const expected = kept.outputs.default!.values;
      const b4 = input.scenes[0]!.bands.B04!;
      const b8 = input.scenes[0]!.bands.B08!;
      expect(expected[77]).toBe(Math.fround((b8[77]! - b4[77]!) / (b8[77]! + b4[77]!)));
      for (const limits of [{ recycleBytes: 1 }, { recycleBytes: 1, blockBytes: 9 * W * 8 }]) {
        const recycled = await loadEvalscript(env, compiled, limits, `recycle-${crypto.randomUUID()}`);
        for (let i = 0; i < 3; i++) expect((await recycled.evaluate(input)).outputs.default!.values).toEqual(expected);
      }
    });
  });
});
