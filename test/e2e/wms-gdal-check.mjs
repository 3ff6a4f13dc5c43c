// GDAL's WMS driver against a running EO Edge (`npm run check:wms-gdal`; the test suite runs the same clients
// through a relay, test/wms/clients.test.ts): starts `npm start` on $PORT or a spare port, creates a WMS instance
// with the Sentinel Hub true-colour layer over the 29RKH sample scene, reads GetMap in WMS 1.3.0 and 1.1.1 with
// `gdal_translate "WMS:<url>" -outsize 1024 1024` (GDAL's smallest overview: one 1024 x 1024 GetMap of the BBOX)
// and one XYZ tile through GDAL's WMTS driver (GetCapabilities, then GetTile of matrix 9 read as the full
// resolution, -srcwin on that tile), and compares the pixels with the Processing API's image of the same bbox, CRS
// and size (read by GDAL too, test/e2e/wms_compare.py). Prints one line per case; exits 1 unless every case is
// identical.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInstance, processBytes, startEoEdge } from "../../scripts/lib/serve.mjs";

const SIZE = 1024;
const HALF = 20037508.342789244;
/** EPSG:3857 bounds of tile 9/239/219 (over the 29RKH scene), by the slippy-map tile rule. */
const TILE = ((z, x, y) => {
  const t = (2 * HALF) / 2 ** z;
  return [-HALF + x * t, HALF - (y + 1) * t, -HALF + (x + 1) * t, HALF - y * t];
})(9, 239, 219);
const TIME = { from: "2020-02-19T00:00:00Z", to: "2020-02-20T00:00:00Z" };
const CRS84 = "http://www.opengis.net/def/crs/OGC/1.3/CRS84";
const epsg = (c) => `http://www.opengis.net/def/crs/EPSG/0/${c}`;
/** name, WMS version and CRS (SRS in 1.1.1), BBOX (in that version's axis order), Processing CRS and bbox (x/y), format, extra query. */
const CASES = [
  [
    "1.3.0 EPSG:4326 (lat,lon axis order)",
    "1.3.0",
    "EPSG:4326",
    "24.5,-11.9,24.8,-11.6",
    epsg(4326),
    [-11.9, 24.5, -11.6, 24.8],
    "image/png",
    "",
  ],
  [
    "1.1.1 EPSG:4326 (lon,lat axis order)",
    "1.1.1",
    "EPSG:4326",
    "-11.9,24.5,-11.6,24.8",
    epsg(4326),
    [-11.9, 24.5, -11.6, 24.8],
    "image/png",
    "",
  ],
  [
    "1.3.0 CRS:84 with TIME=2020-02-19",
    "1.3.0",
    "CRS:84",
    "-11.9,24.5,-11.6,24.8",
    CRS84,
    [-11.9, 24.5, -11.6, 24.8],
    "image/png",
    "&TIME=2020-02-19",
  ],
  [
    "1.3.0 EPSG:3857",
    "1.3.0",
    "EPSG:3857",
    "-1320000,2810000,-1300000,2830000",
    epsg(3857),
    [-1320000, 2810000, -1300000, 2830000],
    "image/png",
    "",
  ],
  [
    "1.1.1 EPSG:3857 JPEG",
    "1.1.1",
    "EPSG:3857",
    "-1320000,2810000,-1300000,2830000",
    epsg(3857),
    [-1320000, 2810000, -1300000, 2830000],
    "image/jpeg",
    "",
  ],
  [
    "1.3.0 EPSG:32629 (UTM 29N)",
    "1.3.0",
    "EPSG:32629",
    "210000,2720000,240000,2750000",
    epsg(32629),
    [210000, 2720000, 240000, 2750000],
    "image/png",
    "",
  ],
];

const dir = mkdtempSync(join(tmpdir(), "wms-gdal-"));

/** Runs a GDAL tool (or python) with its WMS/WMTS tile cache in the scratch directory; returns stdout. */
function gdal(cmd, args) {
  const r = spawnSync(cmd, args, {
    encoding: "utf8",
    env: { ...process.env, GDAL_DEFAULT_WMS_CACHE_PATH: join(dir, "cache") },
  });
  if (r.status !== 0) throw new Error(`${cmd} failed: ${r.stderr}`);
  return r.stdout;
}

const server = await startEoEdge();
let failed = 0;
try {
  const evalscript = readFileSync("data/evalscripts/sentinel-2__true_color__script.js", "utf8");
  const layer = {
    id: "TRUE_COLOR",
    title: "True colour",
    styles: [{ name: "default", evalScript: evalscript }],
    datasourceDefaults: { type: "sentinel-2-l2a", timeRange: TIME, mosaickingOrder: "mostRecent" },
  };
  const id = await createInstance(server.base, server.token, "gdal check", [layer]);
  console.log(`server ${server.base}, instance ${id}, ${gdal("gdalinfo", ["--version"]).trim()}`);
  const wmsCases = CASES.map(([name, version, crs, bbox, pCrs, pBbox, format, extra]) => ({
    name,
    pCrs,
    pBbox,
    format,
    size: SIZE,
    args: [
      "-outsize",
      String(SIZE),
      String(SIZE),
      `WMS:${server.base}/ogc/wms/${id}?SERVICE=WMS&VERSION=${version}&REQUEST=GetMap&LAYERS=TRUE_COLOR&${version === "1.1.1" ? "SRS" : "CRS"}=${crs}&BBOX=${bbox}&FORMAT=${format}${extra}`,
    ],
  }));
  // matrix 9 as the full resolution over the whole matrix (not the layer's extent): the tile is exactly -srcwin's pixels
  const wmtsCase = {
    name: "WMTS driver, tile 9/239/219",
    pCrs: epsg(3857),
    pBbox: TILE,
    format: "image/png",
    size: 256,
    args: [
      "-oo",
      "EXTENT_METHOD=MOST_PRECISE_TILE_MATRIX",
      "-srcwin",
      String(239 * 256),
      String(219 * 256),
      "256",
      "256",
      `WMTS:${server.base}/ogc/wmts/${id}?SERVICE=WMTS&REQUEST=GetCapabilities,layer=TRUE_COLOR,tilematrixset=PopularWebMercator256,tilematrix=9`,
    ],
  };
  for (const { name, pCrs, pBbox, format, size, args } of [...wmsCases, wmtsCase]) {
    const out = join(dir, "gdal.tif");
    const t0 = Date.now();
    gdal("gdal_translate", ["-q", ...args, out]);
    const ms = Date.now() - t0;
    const body = {
      input: {
        bounds: { bbox: pBbox, properties: { crs: pCrs } },
        data: [{ type: "sentinel-2-l2a", dataFilter: { timeRange: TIME, mosaickingOrder: "mostRecent" } }],
      },
      output: { width: size, height: size, responses: [{ identifier: "default", format: { type: format } }] },
      evalscript,
    };
    const ref = join(dir, format === "image/png" ? "process.png" : "process.jpg");
    writeFileSync(ref, await processBytes(server.base, server.token, body));
    const c = JSON.parse(gdal("/usr/bin/python3", ["test/e2e/wms_compare.py", out, ref, "3"]));
    const ok = c.differing === 0 && c.distinct > 1;
    if (!ok) failed++;
    console.log(
      `${ok ? "IDENTICAL" : "DIFFERENT"}  ${name}: ${c.width}x${c.height}x${c.bands}, ${c.differing} pixels differ (max ${c.maxDiff}), ${c.distinct} distinct red values; gdal_translate ${ms} ms`,
    );
  }
} finally {
  await server.stop();
  rmSync(dir, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);
