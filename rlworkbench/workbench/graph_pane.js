// The graph pane of GraphExplorer and GraphBuilder: an SVG drawing fitted to the pane's width when it opens,
// zoomed with the mouse wheel (around the pointer), panned by dragging, fitted again by double-click or "fit",
// and brought to a component (its cluster, id "component-<path>") when the Python side sets `focus`.
// The current view is written to the element's data-scale / data-x / data-y attributes, the fitted scale to
// data-fit-scale and the component last brought into view to data-focused (browser checks read them).

const MIN_SCALE = 0.05;
const MAX_SCALE = 8;

function toPixels(length) {
  const value = parseFloat(length) || 1;
  return /pt$/.test(length || "") ? (value * 96) / 72 : value;
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
  let moved = false;  // the user zoomed or panned: a redraw keeps the view instead of fitting again
  let natural = { width: 1, height: 1 };
  let pendingFocus = "";  // a component to bring into view once the pane has a size and the drawing has it

  const apply = () => {
    stage.style.transform = `translate(${x}px, ${y}px) scale(${scale})`;
    el.dataset.scale = scale.toFixed(4);
    el.dataset.x = x.toFixed(1);
    el.dataset.y = y.toFixed(1);
  };
  const fit = () => {
    const width = viewport.clientWidth;
    if (!width) return false;
    scale = Math.min(1, width / natural.width);
    x = Math.max(0, (width - natural.width * scale) / 2);
    y = 0;
    moved = false;
    apply();
    el.dataset.fitScale = scale.toFixed(4);
    return true;
  };
  const zoomAt = (factor, px, py) => {
    const next = Math.min(MAX_SCALE, Math.max(MIN_SCALE, scale * factor));
    x = px - (px - x) * (next / scale);
    y = py - (py - y) * (next / scale);
    scale = next;
    moved = true;
    apply();
  };
  const focusOn = (path) => {
    pendingFocus = path || "";
    if (!path) return;
    const node = stage.querySelector(`[id="${CSS.escape("component-" + path)}"]`);
    const width = viewport.clientWidth, height = viewport.clientHeight;
    if (!node || !width || !height) return;  // kept pending: tried again after the next draw or resize
    pendingFocus = "";
    const box = node.getBoundingClientRect(), origin = stage.getBoundingClientRect();
    const left = (box.left - origin.left) / scale, top = (box.top - origin.top) / scale;
    const w = box.width / scale, h = box.height / scale;
    scale = Math.min(1.5, Math.max(MIN_SCALE, Math.min((0.9 * width) / w, (0.9 * height) / h)));
    x = width / 2 - (left + w / 2) * scale;
    y = height / 2 - (top + h / 2) * scale;
    moved = true;
    apply();
    el.dataset.focused = path;
  };
  const draw = () => {
    stage.innerHTML = model.get("svg");
    const svg = stage.querySelector("svg");
    if (svg) {  // its size from its own attributes (graphviz writes points): known even while the pane is hidden
      natural = { width: toPixels(svg.getAttribute("width")), height: toPixels(svg.getAttribute("height")) };
      svg.style.display = "block";
      svg.style.width = `${natural.width}px`;
      svg.style.height = `${natural.height}px`;
    }
    viewport.style.height = `${model.get("height")}px`;
    if (!moved) fit();
    else apply();
    if (pendingFocus) focusOn(pendingFocus);
  };

  const button = (label, title, action) => {
    const b = document.createElement("button");
    b.className = "rlw-graph-button";
    b.textContent = label;
    b.title = title;
    b.addEventListener("click", action);
    toolbar.appendChild(b);
  };
  const centre = () => [viewport.clientWidth / 2, viewport.clientHeight / 2];
  button("fit", "fit the drawing to the pane's width (or double-click it)", fit);
  button("100%", "natural size", () => { scale = 1; x = 0; y = 0; moved = true; apply(); });
  button("+", "zoom in (or the mouse wheel)", () => zoomAt(1.25, ...centre()));
  button("−", "zoom out (or the mouse wheel)", () => zoomAt(0.8, ...centre()));
  const hint = document.createElement("span");
  hint.className = "rlw-graph-hint";
  hint.textContent = "wheel: zoom · drag: pan · double-click: fit";
  toolbar.appendChild(hint);

  viewport.addEventListener("wheel", (event) => {
    event.preventDefault();
    const area = viewport.getBoundingClientRect();
    zoomAt(Math.exp(-event.deltaY * 0.0015), event.clientX - area.left, event.clientY - area.top);
  }, { passive: false });
  let drag = null;
  viewport.addEventListener("pointerdown", (event) => {
    drag = { px: event.clientX, py: event.clientY, x, y };
    viewport.setPointerCapture(event.pointerId);
    viewport.classList.add("rlw-dragging");
  });
  viewport.addEventListener("pointermove", (event) => {
    if (!drag) return;
    x = drag.x + event.clientX - drag.px;
    y = drag.y + event.clientY - drag.py;
    moved = true;
    apply();
  });
  const release = () => { drag = null; viewport.classList.remove("rlw-dragging"); };
  viewport.addEventListener("pointerup", release);
  viewport.addEventListener("pointercancel", release);
  viewport.addEventListener("dblclick", fit);
  // Opened in a hidden place (a closed tab, an output not yet attached): fit once the pane gets a size.
  const resized = new ResizeObserver(() => {
    if (!moved) fit();
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
