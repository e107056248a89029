// Pan and zoom of a graphviz SVG, written once for both graph views: the notebook's graph pane (graph_pane.js,
// which graph_pane.py serves with this file inlined in place of its import) and the JupyterLab viewer
// (extensions/rlworkbench-lab/src/graphZoom.ts, which imports this file; the extension's bundle carries it).
// What is shared: the legible scale (every node label at least LEGIBLE_PX on screen), the SVG's natural size, the
// zoom text, the fit scale, zooming around a point, and the wheel and drag gestures. Where each view keeps the
// drawing (a CSS transform in the pane, a scrolled viewport in the lab) stays with the view.
// Types: pan_zoom.d.ts beside this file.

export const LEGIBLE_PX = 9; // the smallest on-screen font size of a node label at the opening scale
export const MIN_SCALE = 0.05;
const PX_PER_PT = 96 / 72; // graphviz writes its size in points
const WHEEL_RATE = 0.0015; // zoom factor per wheel delta unit, as exp(-deltaY * rate)
const DRAG_PX = 3; // a press that moves less is a click (on a cluster, say), not a pan

// The SVG's size at 100 % in CSS px (graphviz writes width="1234pt"); 100 where it says none.
export function naturalSize(svg) {
  const length = (name) => {
    const text = svg.getAttribute(name) || "";
    const value = parseFloat(text);
    return Number.isFinite(value) && value > 0 ? (/pt$/.test(text) ? value * PX_PER_PT : value) : 100;
  };
  return { width: length("width"), height: length("height") };
}

// The smallest scale at which every node label's font is LEGIBLE_PX on screen (0 without node labels).
export function legibleScale(svg, naturalWidth) {
  const box = svg.viewBox && svg.viewBox.baseVal;
  const pxPerUnit = box && box.width ? naturalWidth / box.width : 1;
  const sizes = [...svg.querySelectorAll("g.node text")]
    .map((text) => parseFloat(text.getAttribute("font-size") || ""))
    .filter((size) => Number.isFinite(size) && size > 0);
  return sizes.length ? LEGIBLE_PX / (Math.min(...sizes) * pxPerUnit) : 0;
}

// `scale` within [MIN_SCALE, maxScale].
export function clampScale(scale, maxScale) {
  return Math.min(maxScale, Math.max(MIN_SCALE, scale));
}

// The scale at which a drawing of `natural` size fits `room` (its width only: `widthOnly`), `pad` px spared.
export function fitScale(room, natural, widthOnly = false, pad = 0) {
  const width = (room.width - pad) / natural.width;
  return widthOnly ? width : Math.min(width, (room.height - pad) / natural.height);
}

// What the zoom indicator says: "75 %", or "fit · 27 %" where the view is the fitted one.
export function zoomText(scale, fitted = false) {
  const percent = `${Math.round(scale * 100)} %`;
  return fitted ? `fit · ${percent}` : percent;
}

// The drawing's new offset (px, along one axis) when its scale changes by `ratio`, keeping the drawing's point under
// `anchor` (px in the viewport) where it is.
export function anchoredOffset(offset, anchor, ratio) {
  return anchor - (anchor - offset) * ratio;
}

// Wheel zoom around the pointer and drag pan on `viewport`. `zoom(factor, x, y)`: zoom by `factor` around (x, y),
// viewport px. `panStart()` returns what `pan(start, dx, dy)` moves from. `wheelZooms(event)`: whether this wheel
// event zooms (else it scrolls; default: always). `draggingClass`: on the viewport while a drag pans.
export function panAndZoom(viewport, { zoom, panStart, pan, wheelZooms = () => true, draggingClass = "" }) {
  viewport.addEventListener("wheel", (event) => {
    if (!wheelZooms(event)) return;
    event.preventDefault();
    const area = viewport.getBoundingClientRect();
    zoom(Math.exp(-event.deltaY * WHEEL_RATE), event.clientX - area.left, event.clientY - area.top);
  }, { passive: false });
  let press = null;
  viewport.addEventListener("pointerdown", (event) => {
    const onScrollbar = event.offsetX >= viewport.clientWidth || event.offsetY >= viewport.clientHeight;
    if (event.button !== 0 || (event.target === viewport && onScrollbar)) return;
    press = { x: event.clientX, y: event.clientY, id: event.pointerId, start: panStart(), dragging: false };
  });
  viewport.addEventListener("pointermove", (event) => {
    if (!press || event.pointerId !== press.id) return;
    const dx = event.clientX - press.x, dy = event.clientY - press.y;
    if (!press.dragging) {
      if (Math.hypot(dx, dy) < DRAG_PX) return;
      press.dragging = true;
      viewport.setPointerCapture(event.pointerId);
      if (draggingClass) viewport.classList.add(draggingClass);
    }
    pan(press.start, dx, dy);
  });
  const release = () => {
    press = null;
    if (draggingClass) viewport.classList.remove(draggingClass);
  };
  viewport.addEventListener("pointerup", release);
  viewport.addEventListener("pointercancel", release);
}
