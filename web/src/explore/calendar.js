// The exploration view's calendar: the days with scenes of the collection over the map's view (a Catalog API
// search, ../timeline.js: all pages, lowest cloud cover of each day), under the cloud-cover limit, shown as a month
// grid whose days with scenes are buttons (title: cloud cover and scene count); the other days are plain numbers.
import { datesOf, searchItems, underClouds } from "../timeline.js";

const DOW = ["Mo", "Tu", "We", "Th", "Fr", "Sa", "Su"];

/**
 * {dates: [{date, cloud, count}], bounds: {date: [w, s, e, n] union of that day's item bboxes}} of `collection`
 * over `bbox` (WGS84 [w, s, e, n]) at any time, items with cloud cover above `maxcc` left out; `origin`: the
 * address of the location hosting the collection ("": this one).
 */
export async function availableDates(collection, bbox, maxcc, signal, origin = "") {
  const items = underClouds(
    await searchItems(collection, { bbox }, `2013-01-01T00:00:00Z/${new Date().toISOString()}`, signal, origin),
    maxcc,
  );
  const bounds = {};
  for (const i of items) {
    const d = i.properties.datetime.slice(0, 10);
    const b = i.bbox ?? bbox;
    const o = bounds[d];
    bounds[d] = o ? [Math.min(o[0], b[0]), Math.min(o[1], b[1]), Math.max(o[2], b[2]), Math.max(o[3], b[3])] : [...b];
  }
  return { dates: datesOf(items), bounds };
}

/**
 * Draws the month `month` ("YYYY-MM") of `dates` into `grid` (7 columns, weeks from Monday): a button per day with
 * scenes (aria-pressed for `selected`), calling `pick(date)`.
 */
export function drawMonth(grid, month, dates, selected, pick) {
  const byDay = new Map(dates.map((d) => [d.date, d]));
  const first = new Date(`${month}-01T00:00:00Z`);
  const days = new Date(Date.UTC(first.getUTCFullYear(), first.getUTCMonth() + 1, 0)).getUTCDate();
  const cells = DOW.map((d) => Object.assign(document.createElement("span"), { className: "dow", textContent: d }));
  for (let i = 0; i < (first.getUTCDay() + 6) % 7; i++) cells.push(document.createElement("span"));
  for (let day = 1; day <= days; day++) {
    const date = `${month}-${String(day).padStart(2, "0")}`;
    const d = byDay.get(date);
    if (!d) {
      cells.push(Object.assign(document.createElement("span"), { textContent: String(day) }));
      continue;
    }
    const b = Object.assign(document.createElement("button"), { type: "button", textContent: String(day) });
    b.dataset.date = date;
    b.title = `${date}: ${d.count} scene${d.count > 1 ? "s" : ""}${d.cloud === null ? "" : `, cloud cover ${d.cloud} %`}`;
    b.setAttribute("aria-pressed", String(date === selected));
    b.addEventListener("click", () => pick(date));
    cells.push(b);
  }
  grid.replaceChildren(...cells);
}

/** "YYYY-MM" of the month before (step -1) or after (+1) `month`. */
export function shiftMonth(month, step) {
  const d = new Date(`${month}-01T00:00:00Z`);
  d.setUTCMonth(d.getUTCMonth() + step);
  return d.toISOString().slice(0, 7);
}
