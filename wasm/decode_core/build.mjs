// Build of the decode core (src/raster/codec/decode_core.wasm), called by wasm/build.mjs: libdeflate 1.14 and
// libzstd 1.5.4's decompressor (wasm/vendor/, see SOURCES.md) plus this folder's C (LZW, predictors, entry points),
// compiled with clang --target=wasm32-wasi against Debian's wasi-libc (malloc/memcpy only: the module has no
// imports, which is checked here). Toolchain: Debian `clang lld wasi-libc` (bookworm: clang 14).
//
// Without that toolchain the build does NOT fail: it prints a notice and writes an empty WebAssembly module (8
// bytes, generated here, never committed); so does a failed compilation (e.g. a clang without the wasm32 target),
// with the compiler's error. src/raster/codec recognises the empty module and decodes with the JavaScript / native
// path instead. DECODE_CORE=stub forces the empty module (to try the fallback); DECODE_CORE=required makes a
// missing toolchain or a failed compilation an error (CI);
// CLANG=<path> picks the compiler, WASI_SYSROOT=<dir> the sysroot (default: Debian's /usr, else
// /usr/share/wasi-sysroot as wasi-sdk installs it).
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const LIBDEFLATE = ["adler32", "deflate_compress", "deflate_decompress", "utils", "zlib_compress", "zlib_decompress"];
const ZSTD_COMMON = ["debug", "entropy_common", "error_private", "fse_decompress", "xxhash", "zstd_common"];
const ZSTD_DECOMPRESS = ["huf_decompress", "zstd_ddict", "zstd_decompress", "zstd_decompress_block"];
const DEFINES = [
  "NDEBUG",
  "ZSTD_DISABLE_ASM",
  "ZSTD_LEGACY_SUPPORT=0",
  "ZSTD_NO_TRACE",
  "XXH_NAMESPACE=ZSTD_",
  "DEBUGLEVEL=0",
];
// post-MVP features every V8 of the last years (workerd, node >= 16) has: bulk memory turns memcpy/memset into
// single instructions, SIMD lets clang vectorise the predictor loops.
const FEATURES = ["-mbulk-memory", "-msimd128", "-mnontrapping-fptoint", "-msign-ext"];
/** The empty module: magic + version, no sections. */
const STUB = Uint8Array.of(0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00);

/** All files the module is built from (for the up-to-date check). */
function sources(root) {
  const walk = (dir) =>
    readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
      e.isDirectory() ? walk(join(dir, e.name)) : [join(dir, e.name)],
    );
  return walk(join(root, "wasm/decode_core")).concat(walk(join(root, "wasm/vendor")));
}

function toolchain() {
  const clang = process.env.CLANG ?? "clang";
  const sysroot =
    process.env.WASI_SYSROOT ??
    ["/usr", "/usr/share/wasi-sysroot"].find((d) => existsSync(join(d, "lib/wasm32-wasi/libc.a")));
  try {
    execFileSync(clang, ["--version"], { stdio: "ignore" });
    execFileSync("wasm-ld", ["--version"], { stdio: "ignore" });
  } catch {
    return { missing: `${clang} or wasm-ld not found` };
  }
  return sysroot ? { clang, sysroot } : { missing: "wasi-libc (lib/wasm32-wasi/libc.a) not found" };
}

/**
 * PATH without node_modules/.bin: clang runs a `wasm-opt` it finds on PATH after linking, and npm puts binaryen's
 * (from assemblyscript) there, which then rejects the bulk-memory / SIMD instructions it was not told about.
 */
function pathWithoutNpm() {
  return (process.env.PATH ?? "")
    .split(":")
    .filter((d) => !d.includes("node_modules"))
    .join(":");
}

function compile(root, { clang, sysroot }, output) {
  const v = (p) => join(root, "wasm/vendor", p);
  const files = [
    ...readdirSync(join(root, "wasm/decode_core"))
      .filter((f) => f.endsWith(".c"))
      .map((f) => join(root, "wasm/decode_core", f)),
    ...LIBDEFLATE.map((f) => v(`libdeflate/lib/${f}.c`)),
    ...ZSTD_COMMON.map((f) => v(`zstd/lib/common/${f}.c`)),
    ...ZSTD_DECOMPRESS.map((f) => v(`zstd/lib/decompress/${f}.c`)),
  ];
  const includes = [
    "wasm/decode_core",
    "wasm/vendor/libdeflate",
    "wasm/vendor/zstd/lib",
    "wasm/vendor/zstd/lib/common",
  ];
  execFileSync(
    clang,
    [
      "--target=wasm32-wasi",
      `--sysroot=${sysroot}`,
      "-O2",
      ...FEATURES,
      ...DEFINES.map((d) => `-D${d}`),
      ...includes.map((i) => `-I${join(root, i)}`),
      // no crt, no compiler-rt (not needed: nothing calls its builtins): libc for malloc / memcpy / memset only
      "-nostartfiles",
      "-nodefaultlibs",
      "-lc",
      "-Wl,--no-entry",
      "-Wl,-z,stack-size=1048576",
      "-Wl,--strip-all",
      "-o",
      output,
      ...files,
    ],
    { stdio: ["ignore", "inherit", "inherit"], env: { ...process.env, PATH: pathWithoutNpm() } },
  );
}

/** Builds `output` (path relative to root) unless it is newer than its sources and `scripts` (build scripts). */
export async function buildDecodeCore(root, output, scripts, force) {
  const out = join(root, output);
  const mtime = (p) => statSync(p, { throwIfNoEntry: false })?.mtimeMs ?? -Infinity;
  const newest = Math.max(...sources(root).map(mtime), ...scripts.map(mtime));
  const stub = process.env.DECODE_CORE === "stub";
  const required = process.env.DECODE_CORE === "required";
  const tools = stub ? { missing: "DECODE_CORE=stub" } : toolchain();
  const isStub = mtime(out) > -Infinity && statSync(out).size === STUB.length;
  // a real build newer than every source is kept (even without the toolchain); a stub is rebuilt once it is there
  if (!force && !stub && mtime(out) > newest && !isStub) return;
  if (!tools.missing) {
    try {
      compile(root, tools, out);
    } catch (e) {
      tools.missing = `compiling with ${tools.clang} failed (${e.message.split("\n")[0]})`;
    }
  }
  if (tools.missing) {
    if (required) throw new Error(`DECODE_CORE=required but ${tools.missing}`);
    if (!isStub) writeFileSync(out, STUB);
    console.warn(
      `build:wasm: NOTICE: ${tools.missing}: ${output} is an empty stub, GeoTIFF blocks are ` +
        "decoded by the slower JavaScript path and ZSTD files cannot be read. Install Debian's clang lld wasi-libc and " +
        "run `npm run build:wasm` for the WebAssembly decode core.",
    );
    return;
  }
  const module = new WebAssembly.Module(readFileSync(out));
  const imports = WebAssembly.Module.imports(module);
  if (imports.length)
    throw new Error(
      `${output} imports ${imports.map((i) => `${i.module}.${i.name}`).join(", ")}: workerd cannot satisfy them`,
    );
  console.log(`build:wasm: ${output} (${statSync(out).size} bytes) from wasm/decode_core + wasm/vendor`);
}
