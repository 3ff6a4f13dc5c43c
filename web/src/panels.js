// The request builder's side panels: the time slider and date buttons of the dates with scenes, the pins list,
// the copy buttons and the GeoJSON file reader of the AOI upload. Each takes its data and callbacks; request.js
// owns the state.

const $ = (id) => document.getElementById(id);

/**
 * Shows the dates with scenes `dates` ([{date, cloud, count}], timeline.js datesOf) as a slider and buttons: the
 * ones above `maxcc` are disabled, the ones in [from, to] marked; `pick(date)` on a choice.
 */
export function showDates(dates, { maxcc, from, to }, pick) {
  const usable = dates.filter((d) => (d.cloud ?? 0) <= maxcc);
  const list = $("dateList");
  list.replaceChildren(
    ...dates.map((d) => {
      const b = Object.assign(document.createElement("button"), {
        type: "button",
        textContent: d.cloud === null ? d.date : `${d.date} · ${Math.round(d.cloud)} %`,
      });
      b.dataset.date = d.date;
      b.disabled = (d.cloud ?? 0) > maxcc;
      b.title = `${d.count} scene(s)${d.cloud === null ? "" : `, cloud cover ${d.cloud} %`}${b.disabled ? " (above the cloud limit)" : ""}`;
      b.classList.toggle("in-range", d.date >= from && d.date <= to);
      b.addEventListener("click", () => pick(d.date));
      return b;
    }),
  );
  const slider = $("dateSlider");
  Object.assign(slider, { min: 0, max: Math.max(0, usable.length - 1), disabled: usable.length === 0 });
  const at = usable.findIndex((d) => d.date >= from && d.date <= to);
  slider.value = String(Math.max(0, at));
  slider.onchange = () => usable[Number(slider.value)] && pick(usable[Number(slider.value)].date);
  slider.oninput = () => ($("dateLabel").textContent = usable[Number(slider.value)]?.date ?? "");
  $("dateLabel").textContent = at >= 0 ? usable[at].date : "";
  return usable;
}

/** Lists the pins [{name, saved, state}] in #pinList with Open and Delete buttons. */
export function showPins(list, open, remove) {
  $("pinList").replaceChildren(
    ...list.map((p) => {
      const li = document.createElement("li");
      li.dataset.name = p.name;
      const openB = Object.assign(document.createElement("button"), { type: "button", textContent: "Open" });
      openB.setAttribute("aria-label", `Open pin ${p.name}`);
      openB.addEventListener("click", () => open(p));
      const del = Object.assign(document.createElement("button"), { type: "button", textContent: "Delete" });
      del.setAttribute("aria-label", `Delete pin ${p.name}`);
      del.addEventListener("click", () => remove(p));
      li.append(
        `${p.name} (${p.state.collection}, ${p.state.from} – ${p.state.to}; ${p.saved.slice(0, 16).replace("T", " ")}) `,
        openB,
        " ",
        del,
      );
      return li;
    }),
  );
  $("pinList").hidden = list.length === 0;
}

/** Copies `text` to the clipboard (the Clipboard API, else a selected textarea and execCommand). */
export async function copyText(text) {
  try {
    await navigator.clipboard.writeText(text);
  } catch {
    const t = Object.assign(document.createElement("textarea"), { value: text });
    document.body.append(t);
    t.select();
    document.execCommand("copy");
    t.remove();
  }
}

/** Wires every button[data-copy] to copy the text of the element it names; the button says "Copied" for 2 s. */
export function wireCopyButtons(root) {
  for (const b of root.querySelectorAll("button[data-copy]")) {
    b.addEventListener("click", async () => {
      await copyText($(b.dataset.copy).textContent);
      b.textContent = "Copied";
      setTimeout(() => (b.textContent = "Copy"), 2000);
    });
  }
}

/**
 * The AOI of an uploaded GeoJSON text: a Polygon or MultiPolygon, a Feature of one, or a FeatureCollection whose
 * polygons are merged into one MultiPolygon (in lon/lat, RFC 7946). Throws an Error saying what was found instead.
 */
export function aoiOfGeoJson(text) {
  let g;
  try {
    g = JSON.parse(text);
  } catch (e) {
    throw new Error(`not JSON: ${e.message}`);
  }
  const polys = [];
  const add = (geom) => {
    if (geom?.type === "Polygon") polys.push(geom.coordinates);
    else if (geom?.type === "MultiPolygon") polys.push(...geom.coordinates);
    else if (geom?.type === "GeometryCollection") geom.geometries.forEach(add);
  };
  if (g?.type === "FeatureCollection") g.features?.forEach((f) => add(f.geometry));
  else add(g?.type === "Feature" ? g.geometry : g);
  const valid = polys.filter(
    (p) =>
      Array.isArray(p) &&
      p.every(
        (r) =>
          Array.isArray(r) &&
          r.length >= 4 &&
          r.every((q) => Number.isFinite(q[0]) && Number.isFinite(q[1]) && Math.abs(q[1]) <= 90),
      ),
  );
  if (!valid.length) throw new Error(`no Polygon or MultiPolygon with lon/lat rings found (type ${g?.type ?? "?"})`);
  return {
    geometry:
      valid.length === 1 ? { type: "Polygon", coordinates: valid[0] } : { type: "MultiPolygon", coordinates: valid },
  };
}
