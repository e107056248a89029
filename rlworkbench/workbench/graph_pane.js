// The graph pane of GraphExplorer and GraphBuilder: an SVG drawing at a scale where it can be read, zoomed with the
// mouse wheel (around the pointer), panned by dragging, and brought to a component (its cluster, id
// "component-<path>") when the Python side sets `focus`.
//
// It opens where every node label is at least LEGIBLE_PX on screen: fitted to the pane's width when that is
// enough, else at the legible scale centred on one of the drawn component's own API methods (the SVG's ".rlw-home"
// nodes): the one whose view holds the most node labels (never leaving blank space beyond the drawing's edges),
// the rest a drag away. The toolbar shows the zoom ("fit · 27 %", "75 %"; a click on it opens again), "fit" shows the whole
// width (or double-click), "100 %" is natural size on the same place, + and − step. A redraw keeps the view the
// user chose.
// Browser checks read the element's data-scale / data-x / data-y (the view), data-fit-scale (the width-fitted
// scale), data-legible-scale, data-view ("open", "fit" or "moved"), data-zoom (the shown text) and
// data-focused (the component last brought into view).
//
// The legible scale, natural size, zoom text and the wheel and drag gestures are pan_zoom.js's, shared with the
// JupyterLab viewer. This file uses its anchoredOffset, clampScale, fitScale, legibleScale, naturalSize,
// panAndZoom and zoomText: graph_pane.py serves pan_zoom.js and this file as one module (an anywidget's ESM cannot import a sibling file).

const MAX_SCALE = 8;
const MARGIN = 8;  // px kept between the pane's edge and a drawing larger than the pane

// Where a drawing of `size` px starts in a pane of `room` px, wanting `wanted`: centred when it fits, else
// never leaving blank space beyond MARGIN at either end.
function clampStart(wanted, size, room) {
  if (size <= room - 2 * MARGIN) return (room - size) / 2;
  return Math.min(MARGIN, Math.max(room - size - MARGIN, wanted));
}

function render({ model, el }) {
  el.classList.add("rlw-graph-pane");
  const toolbar = document.createElement("div");
  toolbar.className = "rlw-graph-toolbar";
  const viewport = document.createElement("div");
  viewport.className = "rlw-graph-viewport";
  const stage = document.createElement("div");
  stage.className = "rlw-graph-stage";
  viewport.appendChild(stage);
  el.append(toolbar, viewport);

  let scale = 1, x = 0, y = 0;
  let view = "open";  // how the view was chosen: "open" and "fit" are chosen again after a redraw or resize
  let natural = { width: 1, height: 1 };
  let legible = 0;
  let pendingFocus = "";  // a component to bring into view once the pane has a size and the drawing has it
  let zoomLabel = null;

  const apply = () => {
    stage.style.transform = `translate(${x}px, ${y}px) scale(${scale})`;
    const text = zoomText(scale, view === "fit");
    if (zoomLabel) zoomLabel.textContent = text;
    Object.assign(el.dataset, { scale: scale.toFixed(4), x: x.toFixed(1), y: y.toFixed(1), view, zoom: text,
                                legibleScale: legible.toFixed(4) });
  };
  const fitWidth = () => Math.min(1, fitScale({ width: viewport.clientWidth, height: 0 }, natural, true));
  // The boxes (in drawing px) of the elements matching `selector`.
  const boxesOf = (selector) => {
    const origin = stage.getBoundingClientRect();
    return [...stage.querySelectorAll(selector)].map((node) => {
      const b = node.getBoundingClientRect();
      return { left: (b.left - origin.left) / scale, top: (b.top - origin.top) / scale,
               width: b.width / scale, height: b.height / scale };
    });
  };
  // The box around the elements matching `selector`, or null.
  const boxOf = (selector) => {
    const boxes = boxesOf(selector);
    if (!boxes.length) return null;
    const left = Math.min(...boxes.map((b) => b.left)), top = Math.min(...boxes.map((b) => b.top));
    const right = Math.max(...boxes.map((b) => b.left + b.width));
    const bottom = Math.max(...boxes.map((b) => b.top + b.height));
    return { left, top, width: right - left, height: bottom - top };
  };
  // Where the drawing goes ({x, y}) to show the box `target` (drawing px; null: the drawing's top left) at scale
  // `next`: centred, or (a box larger than the pane, unless `centred`) from its top left.
  const placement = (next, target, centred = false) => {
    const width = viewport.clientWidth, height = viewport.clientHeight;
    const box = target || { left: 0, top: 0, width: 0, height: 0 };
    const start = (low, size, room) => (centred || size * next <= room - 2 * MARGIN
      ? room / 2 - (low + size / 2) * next : MARGIN - low * next);
    return { x: clampStart(start(box.left, box.width, width), natural.width * next, width),
             y: clampStart(start(box.top, box.height, height), natural.height * next, height) };
  };
  const show = (next, target, centred = false) => {
    scale = clampScale(next, MAX_SCALE);
    ({ x, y } = placement(scale, target, centred));
  };
  // At scale `next`, centred on the drawn component's API method whose view holds the most node labels.
  const home = (next) => {
    const nodes = boxesOf("g.node").map((b) => [b.left + b.width / 2, b.top + b.height / 2]);
    const width = viewport.clientWidth / next, height = viewport.clientHeight / next;
    let best = null, most = -1;
    for (const candidate of boxesOf("g.rlw-home")) {
      const at = placement(next, candidate, true);
      const left = -at.x / next, top = -at.y / next;
      const seen = nodes.filter(([cx, cy]) => cx > left && cx < left + width && cy > top && cy < top + height).length;
      if (seen > most) [best, most] = [candidate, seen];
    }
    show(next, best, true);
  };
  const fit = () => {
    if (!viewport.clientWidth) return false;
    scale = fitWidth();
    x = Math.max(0, (viewport.clientWidth - natural.width * scale) / 2);
    y = 0;
    view = "fit";
    el.dataset.fitScale = scale.toFixed(4);
    apply();
    return true;
  };
  const open = () => {
    if (!viewport.clientWidth) return false;
    el.dataset.fitScale = fitWidth().toFixed(4);
    if (fitWidth() >= legible) return fit();
    home(Math.min(1, legible));
    view = "open";
    apply();
    return true;
  };
  const reopen = () => (view === "fit" ? fit() : view === "open" ? open() : false);
  const zoomAt = (factor, px, py) => {
    const next = clampScale(scale * factor, MAX_SCALE);
    x = anchoredOffset(x, px, next / scale);
    y = anchoredOffset(y, py, next / scale);
    scale = next;
    view = "moved";
    apply();
  };
  const focusOn = (path) => {
    pendingFocus = path || "";
    if (!path) return;
    const found = stage.querySelector(`[id="${CSS.escape("component-" + path)}"]`);
    const width = viewport.clientWidth, height = viewport.clientHeight;
    if (!found || !width || !height) return;  // kept pending: tried again after the next draw or resize
    pendingFocus = "";
    const box = boxOf(`[id="${CSS.escape("component-" + path)}"]`);
    const fitted = Math.min((0.9 * width) / box.width, (0.9 * height) / box.height);
    show(Math.max(Math.min(1, legible), Math.min(1.5, fitted)), box);  // never below legible
    view = "moved";
    apply();
    el.dataset.focused = path;
  };
  const draw = () => {
    stage.innerHTML = model.get("svg");
    const svg = stage.querySelector("svg");
    if (svg) {  // its size from its own attributes (graphviz writes points): known even while the pane is hidden
      natural = naturalSize(svg);
      svg.style.display = "block";
      svg.style.width = `${natural.width}px`;
      svg.style.height = `${natural.height}px`;
      legible = legibleScale(svg, natural.width);
    }
    viewport.style.height = `${model.get("height")}px`;
    if (!reopen()) apply();
    if (pendingFocus) focusOn(pendingFocus);
  };

  const button = (label, title, action, className = "rlw-graph-button") => {
    const b = document.createElement("button");
    b.className = className;
    b.textContent = label;
    b.title = title;
    b.addEventListener("click", action);
    toolbar.appendChild(b);
    return b;
  };
  const centre = () => [viewport.clientWidth / 2, viewport.clientHeight / 2];
  button("−", "zoom out (or the mouse wheel)", () => zoomAt(0.8, ...centre()));
  zoomLabel = button("", "the zoom; click: back to the opening view, where node labels read", open,
                     "rlw-graph-button rlw-graph-zoom");
  button("+", "zoom in (or the mouse wheel)", () => zoomAt(1.25, ...centre()));
  button("fit", "the drawing's whole width in the pane (or double-click it)", fit);
  button("100 %", "natural size, on the drawn component's own API methods", () => {
    home(1);
    view = "moved";
    apply();
  });
  const hint = document.createElement("span");
  hint.className = "rlw-graph-hint";
  hint.textContent = "wheel: zoom · drag: pan · double-click: fit";
  toolbar.appendChild(hint);

  panAndZoom(viewport, {
    zoom: zoomAt,
    panStart: () => ({ x, y }),
    pan: (start, dx, dy) => {
      x = start.x + dx;
      y = start.y + dy;
      view = "moved";
      apply();
    },
    draggingClass: "rlw-dragging",
  });
  viewport.addEventListener("dblclick", fit);
  // Opened in a hidden place (a closed tab, an output not yet attached): open once the pane gets a size.
  const resized = new ResizeObserver(() => {
    reopen();
    if (pendingFocus) focusOn(pendingFocus);
  });
  resized.observe(viewport);

  model.on("change:svg", draw);
  model.on("change:height", draw);
  model.on("change:focus_request", () => focusOn(model.get("focus")));
  pendingFocus = model.get("focus");
  draw();
  return () => resized.disconnect();
}

export default { render };
