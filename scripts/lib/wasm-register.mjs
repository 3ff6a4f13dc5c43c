// `--import` this file (e.g. `tsx --import ./scripts/lib/wasm-register.mjs scripts/seed.ts`) before a script whose
// static imports reach a `.wasm` module of src/ (the decode core, the warp kernels): registers ./wasm-hooks.mjs so
// such an import gives a compiled WebAssembly.Module, as wrangler bundles it for workerd.
import { register } from "node:module";

register("./wasm-hooks.mjs", import.meta.url);
