/**
 * The decode core as workerd loads it: ./decode_core.wasm imported statically (workerd cannot compile WebAssembly
 * at run time). `decodeCore()` is null when that module is the empty stub written by a build without clang (see
 * wasm/decode_core/build.mjs): callers then use their JavaScript / native path.
 */
import coreModule from "./decode_core.wasm";
import { DecodeCore } from "./core";

export { DecodeCore, type BlockLayout } from "./core";

let shared: DecodeCore | null | undefined;

/** The isolate's decode core, or null when the module was built as a stub. */
export function decodeCore(): DecodeCore | null {
  if (shared === undefined) shared = DecodeCore.isStub(coreModule) ? null : new DecodeCore(coreModule);
  return shared;
}
