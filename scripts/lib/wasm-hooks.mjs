// Node module hooks for tsx scripts over src/: a `.wasm` import gives a compiled WebAssembly.Module as its default
// export, as wrangler bundles it for workerd. Registered by bench/bench-read.mjs (module.register) and, for scripts
// whose static imports reach a .wasm file (scripts/seed.ts), by `--import ./scripts/lib/wasm-register.mjs`.
export async function load(url, context, next) {
  if (!url.endsWith(".wasm")) return next(url, context);
  const source = `import { readFileSync } from "node:fs";\nexport default new WebAssembly.Module(readFileSync(new URL(${JSON.stringify(url)})));`;
  return { format: "module", source, shortCircuit: true };
}
