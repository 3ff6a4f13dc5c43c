// Swipe comparison of two dates: the second date's tiles in a pane of their own above the first's, clipped to the
// left of a divider the user drags (the technique of the leaflet-side-by-side plugin: CSS clip of the pane in
// layer-point coordinates, renewed as the map moves).
import L from "leaflet";

/**
 * A swipe control on `map`: show(layer) puts `layer` (created in pane "compare") on the left of the divider,
 * hide() removes it; the divider starts in the middle. Returns {show, hide, pane, divider}.
 */
export function swipe(map) {
  const pane = map.createPane("compare");
  pane.style.zIndex = 250; // above tilePane (200), under overlays (400)
  const divider = Object.assign(L.DomUtil.create("div", "swipe-divider", map.getContainer()), { hidden: true });
  divider.setAttribute("role", "slider");
  divider.setAttribute("aria-label", "Swipe divider");
  divider.tabIndex = 0;
  let x = 0.5,
    layer = null;
  const clip = () => {
    const size = map.getSize();
    const nw = map.containerPointToLayerPoint([0, 0]);
    const se = map.containerPointToLayerPoint(size);
    const cut = map.containerPointToLayerPoint([x * size.x, 0]).x;
    pane.style.clip = `rect(${nw.y}px, ${cut}px, ${se.y}px, ${nw.x}px)`;
    divider.style.left = `${x * size.x}px`;
    divider.setAttribute("aria-valuenow", String(Math.round(x * 100)));
  };
  const drag = (e) => {
    const r = map.getContainer().getBoundingClientRect();
    x = Math.min(1, Math.max(0, (e.clientX - r.left) / r.width));
    clip();
  };
  L.DomEvent.disableClickPropagation(divider);
  divider.addEventListener("pointerdown", (e) => {
    divider.setPointerCapture(e.pointerId);
    divider.addEventListener("pointermove", drag);
  });
  divider.addEventListener("pointerup", () => divider.removeEventListener("pointermove", drag));
  divider.addEventListener("keydown", (e) => {
    const step = { ArrowLeft: -0.05, ArrowRight: 0.05 }[e.key];
    if (step) (x = Math.min(1, Math.max(0, x + step))), clip();
  });
  map.on("move zoom resize", () => layer && clip());
  return {
    pane,
    divider,
    show(l) {
      layer?.remove();
      layer = l.addTo(map);
      divider.hidden = false;
      clip();
    },
    hide() {
      layer?.remove();
      layer = null;
      divider.hidden = true;
    },
    /** The divider's position, 0..1 of the map's width. */
    at: () => x,
  };
}
