// Browser check of the console's time-lapse export (`CHECKS=timelapse npm run test:browser`, or alone with
// `node test/e2e/browser-check-timelapse.mjs`): Debian's Chromium (playwright-core) against `npm start` ($CONSOLE_BASE
// or a spare port), over the real Sentinel-2 L2A West Flanders sample (data/sentinel-2-l2a/westflanders, 2017-2018).
//  panel  the request builder's Time-lapse dialog: the dates it lists are the catalog's (searched from Node) under
//         the cloud limit; its GIF has one frame per date at the chosen size, the frames differ, and frame 0 away from
//         the burnt-in label is the Processing API's PNG of that date (requested from Node) within the GIF palette's
//         error; read by Pillow (test/e2e/timelapse_check.py);
//  api    exportTimelapse (window.eoConsole.exportTimelapse) skips the dates without data (their PNG is fully
//         transparent), reports progress per request, keeps at most 3 requests in flight, renders a BYOC collection
//         too (GIF by Pillow as above); MP4 and WebM read by ffprobe (codec, size, frame count, duration) and their
//         first frame decoded by ffmpeg compared with the PNG (lossy: a looser bound); skipped with a notice when
//         ffprobe is missing (`apt-get install ffmpeg`, as .ci/run does);
//  errors the service's error envelope surfaces with its message; bad options and dates without data are refused;
//  w390   at 390x844 the dialog's controls stay on screen.
// Files: test-artifacts/timelapse/ (the GIF, MP4, WebM, reference PNGs), screenshot test-artifacts/browser/timelapse-*.
// STEPS=panel,api picks steps. Exits 1 on a failure.
import { decode } from "fast-png";
import { spawnSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { api, runChecks, SHOTS } from "./lib/console-check.mjs";

const failures = [];
const check = (ok, text) => (console.log(`${ok ? "OK  " : "FAIL"} ${text}`), ok || failures.push(text));
const OUT = join("test-artifacts", "timelapse");
mkdirSync(OUT, { recursive: true });
const COLLECTION = "sentinel-2-l2a";
const TRUE_COLOUR = `//VERSION=3
function setup() { return { input: ["B02", "B03", "B04", "dataMask"], output: { bands: 4 } }; }
function evaluatePixel(s) { return [2.5 * s.B04, 2.5 * s.B03, 2.5 * s.B02, s.dataMask]; }`;
const WIDTH = 256;
const WF_BYOC = "byoc-00000000-0000-4000-8000-00000000b70c"; // the West Flanders BYOC sample (scripts/seed-byoc.ts)
const hasFfprobe = spawnSync("ffprobe", ["-version"]).status === 0;

/** Height the console gives a WIDTH px frame over WGS84 `bbox` (ground aspect: longitude degrees shrink by cos lat). */
const heightOf = ([w, s, e, n]) =>
  Math.round((WIDTH * (n - s)) / ((e - w) * Math.cos((((s + n) / 2) * Math.PI) / 180)));

/** The Processing API's PNG of `date` over `bbox` (EPSG:4326) at `width` x `height`, requested from Node. */
async function referencePng(
  base,
  token,
  { bbox, width, height, evalscript = TRUE_COLOUR, collection = COLLECTION },
  date,
) {
  const r = await fetch(`${base}/api/v1/process`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify({
      input: {
        bounds: { bbox, properties: { crs: "http://www.opengis.net/def/crs/EPSG/0/4326" } },
        data: [
          {
            type: collection,
            dataFilter: {
              timeRange: { from: `${date}T00:00:00Z`, to: `${date}T23:59:59Z` },
              mosaickingOrder: "leastCC",
            },
          },
        ],
      },
      output: { width, height, responses: [{ identifier: "default", format: { type: "image/png" } }] },
      evalscript,
    }),
  });
  return { status: r.status, bytes: new Uint8Array(await r.arrayBuffer()) };
}

/** Dates of `dates` whose reference PNG has data (an alpha above 0), the first one's PNG saved as `name`. */
async function withData(base, token, area, dates, name) {
  const kept = [];
  for (const date of dates) {
    const { status, bytes } = await referencePng(base, token, area, date);
    if (status !== 200)
      throw new Error(`reference ${date}: ${status} ${new TextDecoder().decode(bytes).slice(0, 200)}`);
    const png = decode(bytes);
    if (png.data.some((v, i) => i % png.channels === png.channels - 1 && v > 0)) {
      if (!kept.length) writeFileSync(join(OUT, name), bytes);
      kept.push(date);
    }
  }
  return kept;
}

/** Pillow's reading of `file` against the reference PNG `ref` (timelapse_check.py's JSON). */
function pillow(file, ref) {
  const r = spawnSync("/usr/bin/python3", ["test/e2e/timelapse_check.py", file, ref], { encoding: "utf8" });
  if (r.status !== 0) throw new Error(`timelapse_check.py: ${r.stderr}`);
  return JSON.parse(r.stdout);
}

/** Checks a GIF of `dates` (the dates with data) at `size` against the reference PNG `ref`, by Pillow. */
function checkGif(label, file, ref, dates, size) {
  const g = pillow(file, ref);
  check(
    g.format === "GIF" && g.frames === dates.length && g.size.join() === size.join(),
    `${label}: GIF of ${g.frames} frames ${g.size.join("x")} (expected ${dates.length} frames ${size.join("x")}: ${dates.join(", ")})`,
  );
  check(
    g.frame_diffs.length === dates.length - 1 && g.frame_diffs.every((d) => d > 3),
    `${label}: consecutive frames differ (mean |RGB| differences ${g.frame_diffs.join(", ")})`,
  );
  // the GIF holds at most 256 colours a frame: the palette's rounding is the only difference allowed
  check(
    g.first.mean < 3 && g.first.p99 <= 16,
    `${label}: frame 0 above the label vs the Processing API's PNG of ${dates[0]}: mean |diff| ${g.first.mean}, p99 ${g.first.p99}, max ${g.first.max}`,
  );
}

/** Opens the builder on the West Flanders sample; resolves to its AOI's WGS84 bbox. */
async function westFlanders(page, base) {
  await page.goto(`${base}/#request?collection=${COLLECTION}`);
  await page.waitForSelector("body[data-request-ready]", { timeout: 120_000 });
  const before = await page.getAttribute("body", "data-dates-ready");
  await page.fill("#placeSearch", "West Flanders");
  await page.click("#placeForm button[type=submit]");
  await page.waitForFunction((b) => document.body.dataset.datesReady !== b, before, { timeout: 30_000 });
  return page.evaluate(() => {
    const a = window.eoConsole.aoi();
    return a.bbox;
  });
}

/** The dialog: dates from the catalog under the cloud limit, a GIF export downloaded and read by Pillow. */
async function panel({ page, base, token }) {
  const bbox = await westFlanders(page, base);
  await page.evaluate(
    (s) =>
      window.eoConsole.editor.dispatch({
        changes: { from: 0, to: window.eoConsole.editor.state.doc.length, insert: s },
      }),
    TRUE_COLOUR,
  );
  await page.click("#timelapseOpen");
  await page.fill("#tlFrom", "2018-04-19");
  await page.fill("#tlTo", "2018-06-30");
  await page.fill("#tlMaxcc", "30");
  await page.click("#tlFind");
  await page.waitForFunction(() => /^\d+$/.test(document.getElementById("tlCount").textContent), null, {
    timeout: 60_000,
  });
  const listed = await page.$$eval("#tlDates input", (els) => els.map((e) => e.value));
  const items = (
    await api(base, token, "/api/v1/catalog/1.0.0/search", {
      method: "POST",
      body: { collections: [COLLECTION], bbox, datetime: "2018-04-19T00:00:00Z/2018-06-30T23:59:59Z", limit: 100 },
    })
  ).features.filter((f) => f.properties["eo:cloud_cover"] <= 30);
  const catalog = [...new Set(items.map((f) => f.properties.datetime.slice(0, 10)))].sort();
  check(
    listed.length >= 3 && listed.join() === catalog.join(),
    `panel lists the catalog's dates under 30 % cloud: [${listed.join(", ")}] (catalog: [${catalog.join(", ")}])`,
  );
  await page.fill("#tlWidth", String(WIDTH));
  await page.selectOption("#tlFormat", "gif");
  const [download] = await Promise.all([
    page.waitForEvent("download", { timeout: 180_000 }),
    page
      .click("#tlExport")
      .then(() =>
        page.waitForSelector("#tlDownload:not([hidden])", { timeout: 180_000 }).then(() => page.click("#tlDownload")),
      ),
  ]);
  const file = join(OUT, "westflanders-panel.gif");
  await download.saveAs(file);
  await page.screenshot({ path: join(SHOTS, "timelapse-panel.png") });
  console.log(`INFO panel: ${await page.textContent("#tlState")}; saved ${file} (${download.suggestedFilename()})`);
  const area = { bbox, width: WIDTH, height: heightOf(bbox) };
  const dates = await withData(base, token, area, listed, "westflanders-panel-frame0.png");
  checkGif("panel", file, join(OUT, "westflanders-panel-frame0.png"), dates, [area.width, area.height]);
  await page.click("#tlClose");
}

/**
 * Runs exportTimelapse in the page with `options` (token and collection added); resolves to {bytes (Uint8Array),
 * type, dates, progress: [[done, total]...]} or {error: {name, message, status}}.
 */
const exportInPage = async (page, options) => {
  const r = await page.evaluate(async (o) => {
    const progress = [];
    try {
      const blob = await window.eoConsole.exportTimelapse({
        token: sessionStorage.getItem("eo-edge-token"),
        ...o,
        onProgress: (done, total) => progress.push([done, total]),
      });
      const url = await new Promise((done) => {
        const reader = new FileReader();
        reader.onload = () => done(reader.result);
        reader.readAsDataURL(blob);
      });
      return { base64: url.slice(url.indexOf(",") + 1), type: blob.type, dates: blob.dates, progress };
    } catch (e) {
      return { error: { name: e.name, message: e.message, status: e.status } };
    }
  }, options);
  return r.error ? r : { ...r, bytes: Buffer.from(r.base64, "base64") };
};

/** ffprobe's reading of video `file`: {codec, width, height, frames, duration}. */
function ffprobe(file) {
  const entries = "stream=codec_name,width,height,nb_read_frames:format=duration,format_name";
  const args = ["-v", "error", "-count_frames", "-select_streams", "v:0", "-show_entries", entries, "-of", "json"];
  const r = spawnSync("ffprobe", [...args, file], { encoding: "utf8" });
  if (r.status !== 0) throw new Error(`ffprobe ${file}: ${r.stderr}`);
  const { streams, format } = JSON.parse(r.stdout);
  const { codec_name: codec, width, height, nb_read_frames: frames } = streams[0];
  return {
    codec,
    width,
    height,
    frames: Number(frames),
    duration: Number(format.duration),
    container: format.format_name,
  };
}

/**
 * exportTimelapse itself: dates without data left out, progress per request; the GIF read by Pillow, the MP4 and
 * WebM by ffprobe and their first frame (decoded by ffmpeg) compared with the PNG.
 */
async function apiStep({ page, base, token }) {
  const bbox = await westFlanders(page, base);
  const area = { bbox, width: WIDTH, height: heightOf(bbox) };
  const asked = ["2018-04-19", "2018-05-25", "2018-05-24", "2018-07-15", "2018-08-08"]; // 05-25, 08-08: no scene
  const dates = await withData(base, token, area, asked, "westflanders-api-frame0.png");
  check(dates.join() === "2018-04-19,2018-05-24,2018-07-15", `dates with data by the API: ${dates.join(", ")}`);
  const ref = join(OUT, "westflanders-api-frame0.png");
  const options = {
    collection: COLLECTION,
    evalscript: TRUE_COLOUR,
    bbox,
    dates: asked,
    width: WIDTH,
    height: area.height,
  };
  let inFlight = 0,
    most = 0;
  const isFrame = (r) => r.url().endsWith("/api/v1/process");
  const opened = (r) => isFrame(r) && (most = Math.max(most, ++inFlight));
  const closed = (r) => isFrame(r) && inFlight--;
  page.on("request", opened).on("requestfinished", closed).on("requestfailed", closed);
  const gif = await exportInPage(page, { ...options, format: "gif" });
  page.off("request", opened).off("requestfinished", closed).off("requestfailed", closed);
  check(most >= 2 && most <= 3, `at most 3 frame requests in flight: ${most} at once`);
  if (gif.error) throw new Error(`GIF export: ${gif.error.message}`);
  writeFileSync(join(OUT, "westflanders-api.gif"), gif.bytes);
  check(
    gif.type === "image/gif" && gif.dates.join() === dates.join(),
    `GIF blob: type ${gif.type}, dates ${gif.dates.join(", ")} (no-data dates left out)`,
  );
  const done = gif.progress.map(([d]) => d);
  check(
    gif.progress.length === asked.length &&
      done.every((d, i) => d === i + 1) &&
      gif.progress.every(([, t]) => t === asked.length),
    `progress: ${JSON.stringify(gif.progress)}`,
  );
  checkGif("api", join(OUT, "westflanders-api.gif"), ref, dates, [area.width, area.height]);
  // a BYOC collection (the West Flanders sample's tiles; no cloud cover: leastCC falls back to the newest)
  const byoc = { ...area, collection: WF_BYOC, evalscript: TRUE_COLOUR.replace(/(s\.B0\d)/g, "$1 / 10000") };
  const byocDates = await withData(base, token, byoc, asked.slice(0, 3), "westflanders-byoc-frame0.png");
  const b = await exportInPage(page, { ...options, ...byoc, dates: asked.slice(0, 3), format: "gif" });
  if (b.error) throw new Error(`BYOC GIF export: ${b.error.message}`);
  writeFileSync(join(OUT, "westflanders-byoc.gif"), b.bytes);
  checkGif("byoc", join(OUT, "westflanders-byoc.gif"), join(OUT, "westflanders-byoc-frame0.png"), byocDates, [
    area.width,
    area.height,
  ]);
  // a fractional frame rate too (mp4-muxer takes only whole ones as its timescale)
  for (const [format, fps] of [
    ["mp4", 0.5],
    ["webm", 4],
  ]) {
    const v = await exportInPage(page, { ...options, format, fps });
    if (v.error) {
      check(false, `${format} export: ${v.error.message}`);
      continue;
    }
    const file = join(OUT, `westflanders-api.${format}`);
    writeFileSync(file, v.bytes);
    if (!hasFfprobe) {
      console.log(`SKIP ${format}: ffprobe missing (apt-get install ffmpeg); ${v.bytes.length} B written to ${file}`);
      continue;
    }
    const p = ffprobe(file);
    const even = [area.width + (area.width & 1), area.height + (area.height & 1)];
    check(
      p.frames === dates.length + (format === "webm" ? 1 : 0) && // WebM: the last frame again at the end time
        p.width === even[0] &&
        p.height === even[1] &&
        Math.abs(p.duration - dates.length / fps) < 0.05,
      `${format} by ffprobe: ${JSON.stringify(p)} (expected ${dates.length + (format === "webm" ? 1 : 0)} frames ${even.join("x")}, ${dates.length / fps} s)`,
    );
    const first = join(OUT, `westflanders-api-${format}-frame0.png`);
    const f = spawnSync("ffmpeg", ["-v", "error", "-y", "-i", file, "-frames:v", "1", first]);
    if (f.status !== 0) throw new Error(`ffmpeg ${file}: ${f.stderr}`);
    const q = pillow(first, ref);
    // lossy video (YUV 4:2:0): a looser bound than the GIF's
    check(
      q.first.mean < 8,
      `${format} (${p.codec}) frame 0 vs the PNG: mean |diff| ${q.first.mean}, p99 ${q.first.p99}`,
    );
  }
}

/** The service's error envelope surfaces with its message; bad options and dates without data are refused. */
async function errors({ page, base, token }) {
  const bbox = await westFlanders(page, base);
  const area = { bbox, width: 64, height: 64 };
  const broken =
    '//VERSION=3\nfunction setup() { return { input: ["B04"], output: { bands: 1 } }; }\nfunction evaluatePixel(s) { return [s.B04 ';
  const { status, bytes } = await referencePng(base, token, { ...area, evalscript: broken }, "2018-05-24");
  const envelope = JSON.parse(new TextDecoder().decode(bytes)).error;
  const got = await exportInPage(page, {
    ...area,
    collection: COLLECTION,
    evalscript: broken,
    dates: ["2018-05-24"],
    format: "gif",
  });
  check(
    status === 400 && got.error?.status === 400 && got.error.message === `2018-05-24: ${envelope.message}`,
    `a broken evalscript: "${got.error?.message}" (the API says ${status} "${envelope?.message}")`,
  );
  const unknown = await exportInPage(page, {
    ...area,
    collection: "no-such-collection",
    evalscript: TRUE_COLOUR,
    dates: ["2018-05-24"],
    format: "gif",
  });
  check(
    unknown.error?.status === 400 && /^2018-05-24: .*no-such-collection/.test(unknown.error.message),
    `an unknown collection: ${unknown.error?.status} "${unknown.error?.message}"`,
  );
  const none = await exportInPage(page, {
    ...area,
    collection: COLLECTION,
    evalscript: TRUE_COLOUR,
    dates: ["2018-05-25", "2018-08-08"],
    format: "gif",
  });
  check(/None of the 2 dates has data/.test(none.error?.message), `dates without data only: "${none.error?.message}"`);
  for (const [bad, what] of [
    [{ bbox: [bbox[2], bbox[1], bbox[0], bbox[3]] }, /bbox must be/],
    [{ dates: ["2018-13-45"] }, /bad date/],
    [{ dates: [] }, /at least one/],
    [{ width: 5000 }, /width must be/],
    [{ format: "avi" }, /format must be/],
  ]) {
    const r = await exportInPage(page, {
      ...area,
      collection: COLLECTION,
      evalscript: TRUE_COLOUR,
      dates: ["2018-05-24"],
      format: "gif",
      ...bad,
    });
    check(
      r.error?.name === "RangeError" && what.test(r.error.message),
      `refused ${JSON.stringify(bad)}: ${r.error?.name} "${r.error?.message}"`,
    );
  }
}

/** At 390x844: the Time-lapse button and every control of the dialog lie within the screen's width. */
async function w390({ page, base }) {
  await page.setViewportSize({ width: 390, height: 844 });
  await westFlanders(page, base);
  await page.click("#timelapseOpen");
  await page.fill("#tlFrom", "2018-04-19");
  await page.fill("#tlTo", "2018-06-30");
  await page.click("#tlFind");
  await page.waitForFunction(() => /^\d+$/.test(document.getElementById("tlCount").textContent));
  const off = await page.evaluate(() =>
    [...document.querySelectorAll("#timelapseOpen, #timelapse button, #timelapse input, #timelapse select")]
      .filter((e) => {
        const b = e.getBoundingClientRect();
        return b.width > 0 && (b.left < -1 || b.right > window.innerWidth + 1);
      })
      .map((e) => e.id || e.value || e.tagName),
  );
  const overflow = await page.$eval("#timelapse", (d) => d.scrollWidth - d.clientWidth);
  await page.screenshot({ path: join(SHOTS, "timelapse-390.png") });
  check(
    off.length === 0 && overflow <= 0,
    `390 px: controls off screen [${off.join(", ")}], dialog overflow ${overflow} px`,
  );
  await page.click("#tlClose");
  await page.setViewportSize({ width: 1280, height: 720 });
}

await runChecks("timelapse", { panel, api: apiStep, errors, w390 }, check, failures);
