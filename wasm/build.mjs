// `npm run build:wasm` (also run by prepare / prestart / pretest / prebench / predeploy): compiles the
// AssemblyScript raster kernels to the WebAssembly modules src/ imports statically (workerd cannot compile
// WebAssembly at run time). Needs only the assemblyscript npm package. The outputs are build products, ignored
// by git. Skips a module whose output is newer than its source and this script; `--force` rebuilds.
// Also builds the C decode core (src/raster/codec/decode_core.wasm, see wasm/decode_core/build.mjs): with Debian's
// clang lld wasi-libc; without them an empty stub module and a notice, and the runtime decodes in JavaScript.
import { statSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { dirname, join, relative } from "node:path";
import { buildDecodeCore } from "./decode_core/build.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const MODULES = [
  { source: "wasm/warp_kernels.ts", output: "src/raster/warp/warp_kernels.wasm" },
  // 128-bit SIMD (workerd's V8 and node have it) for the statistics kernels' min / max
  { source: "wasm/stats_kernels.ts", output: "src/raster/stats/stats_kernels.wasm", flags: ["--enable", "simd"] },
  // and for the host path's true colour writer
  {
    source: "wasm/hostpath_kernels.ts",
    output: "src/raster/evalscript/hostpath/hostpath_kernels.wasm",
    flags: ["--enable", "simd"],
  },
];
// stub runtime: no garbage collector or allocator (the kernels allocate nothing); `--use abort=`: no imports
const FLAGS = ["-O3", "--runtime", "stub", "--noAssert", "--use", "abort="];

const mtime = (path) => statSync(join(root, path), { throwIfNoEntry: false })?.mtimeMs ?? -Infinity;
const self = relative(root, fileURLToPath(import.meta.url));

for (const { source, output, flags = [] } of MODULES) {
  if (!process.argv.includes("--force") && mtime(output) > Math.max(mtime(source), mtime(self))) continue;
  const { default: asc } = await import("assemblyscript/asc"); // only when building: loading it takes ~0.5 s
  const { error, stderr } = await asc.main([join(root, source), ...FLAGS, ...flags, "-o", join(root, output)]);
  if (error) {
    console.error(`build:wasm: ${source} failed\n${stderr.toString()}`);
    process.exit(1);
  }
  console.log(`build:wasm: ${output} (${statSync(join(root, output)).size} bytes) from ${source}`);
}

try {
  await buildDecodeCore(
    root,
    "src/raster/codec/decode_core.wasm",
    [fileURLToPath(import.meta.url)],
    process.argv.includes("--force"),
  );
} catch (e) {
  console.error(`build:wasm: the decode core failed: ${e.message}`);
  process.exit(1);
}
