// GeoTIFF block decoding alone, no server: the WebAssembly decode core (src/raster/codec, built by
// `npm run build:wasm`) against the JavaScript path geotiff.js takes (its decoders: pako inflate, its LZW, its
// predictors; its ZSTD decoder compiles WebAssembly at run time, which works in Node but not in workerd).
// Run: `npm run -s bench:decode` (tsx, so the TypeScript sources import directly). Not a test.
// workerd's native DecompressionStream, the production fallback for DEFLATE, does not exist in Node (Node's own
// DecompressionStream is its zlib, a different implementation), so it is not timed here.
//
// Files: every tile of real sample bands (S2 B04/B08 DEFLATE, S1 VV DEFLATE + predictor 2) and, when GDAL's
// gdal_translate is on PATH, B04 rewritten to /tmp as LZW + predictor 2 and ZSTD + predictor 2; plus a 1024 x 1024
// FLOAT32 NDVI written here as 512 x 512 tiles with predictor 3 + zlib level 6 (compressed by the core).
// Per file: median time over N rounds of decoding all its tiles, each path alternating round by round (a shared
// machine's load hits both alike), MB/s of decoded bytes, ratio JS / WASM (target >= 2).
// Then zlib compression of that NDVI (predictor 3 applied), levels 1 and 6: the core (libdeflate) vs fflate.
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { getDecoder } from "geotiff";
import { zlibSync } from "fflate";
import { summaryRow } from "../scripts/lib/bench.mjs";
import { DecodeCore } from "../src/raster/codec/core.ts";
import { parseHeader } from "../src/raster/cog/header.ts";

const N = Number(process.env.BENCH_N ?? 15);
const S2 = "data/sentinel-2-l2a/S2A_29RKH_20200219_0_L2A";
const S1 = "data/sentinel-1-grd/S1A_IW_GRDH_1SDV_20180716T004042_FD5B/iw-vv.utm43n-200m.tif";
const BYTES = { UINT8: 1, UINT16: 2, INT16: 2, UINT32: 4, INT32: 4, FLOAT32: 4, FLOAT64: 8 };

const module = new WebAssembly.Module(readFileSync("src/raster/codec/decode_core.wasm"));
if (DecodeCore.isStub(module)) {
  console.error(
    "decode_core.wasm is the stub (no clang at build time): install clang lld wasi-libc, npm run build:wasm",
  );
  process.exit(1);
}
const core = new DecodeCore(module);

const median = (t) => t.sort((a, b) => a - b)[t.length >> 1];
const toBuffer = (b) => b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength);

/** The level-0 tiles of a GeoTIFF file: header, compressed bytes, decoded size. */
async function tilesOf(path) {
  const buf = toBuffer(readFileSync(path));
  const header = await parseHeader({
    id: path,
    size: buf.byteLength,
    read: async (rs) => rs.map((r) => buf.slice(r.offset, r.offset + r.length)),
  });
  const level = header.levels[0];
  const tiles = level.offsets.map((o, i) => buf.slice(o, o + level.byteCounts[i]));
  return { header, level, tiles };
}

/** Both decoders of a file: functions decoding all its tiles once. */
async function decoders({ header, level, tiles }) {
  const bps = BYTES[header.sampleType];
  const layout = {
    width: level.blockWidth,
    rows: level.blockHeight,
    samplesPerPixel: header.samplesPerPixel,
    bytesPerSample: bps,
    predictor: level.predictor,
  };
  const params = {
    tileWidth: level.blockWidth,
    tileHeight: level.blockHeight,
    predictor: level.predictor,
    bitsPerSample: [bps * 8],
    planarConfiguration: 1,
    samplesPerPixel: header.samplesPerPixel,
  };
  const js = await getDecoder(level.compression, params);
  const bytes = tiles.map((t) => new Uint8Array(t));
  return {
    decoded: tiles.length * level.blockWidth * level.blockHeight * header.samplesPerPixel * bps,
    wasm: async () => {
      for (const b of bytes) core.decode(level.compression, b, layout);
    },
    js: async () => {
      for (const t of tiles) await js.decode(t.slice(0));
    },
  };
}

/** JS/WASM time ratio of every file timed, for the summary row. */
const ratios = [];

async function timeFile(name, file) {
  const d = await decoders(file);
  const t = { wasm: [], js: [] };
  for (let i = 0; i < N + 2; i++) {
    for (const k of ["wasm", "js"]) {
      const t0 = performance.now();
      await d[k]();
      if (i >= 2) t[k].push(performance.now() - t0);
    }
  }
  const [w, j] = [median(t.wasm), median(t.js)];
  const mbs = (ms) => (d.decoded / 1e6 / (ms / 1e3)).toFixed(0).padStart(5);
  const l = file.level;
  ratios.push({ name, ratio: j / w, predictor: l.predictor, compression: l.compression });
  console.log(
    `${name.padEnd(34)} ${String(file.tiles.length).padStart(3)} tiles ${l.blockWidth}² c${l.compression} p${l.predictor}  WASM ${w.toFixed(2).padStart(7)} ms ${mbs(w)} MB/s  JS ${j.toFixed(2).padStart(7)} ms ${mbs(j)} MB/s  JS/WASM ${(j / w).toFixed(2)}x`,
  );
}

/** B04 rewritten by gdal_translate (LZW / ZSTD, predictor 2) into the temp folder; null without GDAL. */
function gdalCopy(compress) {
  const out = join(tmpdir(), `bench-decode-b04-${compress}.tif`);
  try {
    if (!existsSync(out))
      execFileSync("gdal_translate", [
        "-q",
        "-co",
        "TILED=YES",
        "-co",
        "BLOCKXSIZE=512",
        "-co",
        "BLOCKYSIZE=512",
        "-co",
        `COMPRESS=${compress}`,
        "-co",
        "PREDICTOR=2",
        `${S2}/B04.tif`,
        out,
      ]);
    return out;
  } catch {
    return null;
  }
}

/** 1024 x 1024 FLOAT32 NDVI from B04 / B08 (uint16, both full-resolution, first 1024 rows and columns). */
async function ndvi() {
  const [red, nir] = await Promise.all(
    ["B04", "B08"].map(async (b) => {
      const { header, level, tiles } = await tilesOf(`${S2}/${b}.tif`);
      const across = Math.ceil(level.width / level.blockWidth);
      const out = new Uint16Array(1024 * 1024);
      tiles.forEach((t, i) => {
        const data = new Uint16Array(
          core.decode(level.compression, new Uint8Array(t), {
            width: 512,
            rows: 512,
            samplesPerPixel: 1,
            bytesPerSample: BYTES[header.sampleType],
            predictor: level.predictor,
          }),
        );
        const [bx, by] = [i % across, Math.floor(i / across)];
        if (bx > 1 || by > 1) return;
        for (let y = 0; y < 512; y++) out.set(data.subarray(y * 512, y * 512 + 512), (by * 512 + y) * 1024 + bx * 512);
      });
      return out;
    }),
  );
  return Float32Array.from(red, (r, i) => (nir[i] - r) / (nir[i] + r || 1));
}

/** The NDVI as 4 tiles of 512², predictor 3 + zlib level 6: a file-like tile list for timeFile. */
function ndviTiles(v) {
  const tiles = [];
  for (const [bx, by] of [
    [0, 0],
    [1, 0],
    [0, 1],
    [1, 1],
  ]) {
    const tile = new Float32Array(512 * 512);
    for (let y = 0; y < 512; y++)
      tile.set(v.subarray((by * 512 + y) * 1024 + bx * 512, (by * 512 + y) * 1024 + bx * 512 + 512), y * 512);
    const predicted = core.floatPredictorEncode(new Uint8Array(tile.buffer), {
      width: 512,
      rows: 512,
      samplesPerPixel: 1,
      bytesPerSample: 4,
    });
    tiles.push(toBuffer(core.deflateZlib(predicted, 6)));
  }
  const level = { blockWidth: 512, blockHeight: 512, compression: 8, predictor: 3 };
  return { header: { sampleType: "FLOAT32", samplesPerPixel: 1 }, level, tiles };
}

function timeCompression(v) {
  const raw = new Uint8Array(v.buffer);
  const layout = { width: 1024, rows: 1024, samplesPerPixel: 1, bytesPerSample: 4 };
  const predicted = core.floatPredictorEncode(raw, layout);
  for (const level of [1, 6]) {
    const t = { wasm: [], js: [] };
    let sizes;
    for (let i = 0; i < Math.max(5, N >> 1) + 1; i++) {
      const t0 = performance.now();
      const a = core.deflateZlib(predicted, level);
      const t1 = performance.now();
      const b = zlibSync(predicted, { level });
      const t2 = performance.now();
      if (i > 0) {
        t.wasm.push(t1 - t0);
        t.js.push(t2 - t1);
      }
      sizes = [a.byteLength, b.byteLength];
    }
    const [w, j] = [median(t.wasm), median(t.js)];
    console.log(
      `zlib level ${level}, 1 Mpx FLOAT32 NDVI + predictor 3 (4 MB): WASM libdeflate ${w.toFixed(1)} ms -> ${(sizes[0] / 1e6).toFixed(2)} MB; JS fflate ${j.toFixed(1)} ms -> ${(sizes[1] / 1e6).toFixed(2)} MB; JS/WASM ${(j / w).toFixed(2)}x`,
    );
  }
}

console.log(
  `decode, all tiles per file, median of ${N} rounds (WASM = src/raster/codec core; JS = geotiff.js decoders)`,
);
await timeFile("S2 B04 (DEFLATE)", await tilesOf(`${S2}/B04.tif`));
await timeFile("S2 B08 (DEFLATE)", await tilesOf(`${S2}/B08.tif`));
await timeFile("S1 VV (DEFLATE + predictor 2)", await tilesOf(S1));
for (const c of ["LZW", "ZSTD"]) {
  const path = gdalCopy(c);
  if (path) await timeFile(`S2 B04 via gdal_translate (${c} + p2)`, await tilesOf(path));
  else console.log(`S2 B04 ${c}: skipped (gdal_translate not found)`);
}
const v = await ndvi();
await timeFile("NDVI FLOAT32 (DEFLATE 6 + predictor 3)", ndviTiles(v));
timeCompression(v);
const deflate = ratios.filter((r) => r.compression === 8 || r.compression === 32946);
const lo = Math.min(...deflate.map((r) => r.ratio));
const hi = Math.max(...deflate.map((r) => r.ratio));
summaryRow(
  "tile decode (DEFLATE + predictor, the sample COGs), WASM / geotiff.js JS",
  `${lo.toFixed(2)}-${hi.toFixed(2)}x faster (in Node; in workerd the core is at par with the native DecompressionStream on plain DEFLATE)`,
  ">= 2x faster",
  lo >= 2,
);
