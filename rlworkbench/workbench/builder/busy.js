// The builder's busy line: while `label` is set, "⏳ <label>… n s" ticks (from `delay` seconds on); the Python side
// sets the label when a build starts and clears it when it ends. data-busy holds the label while it shows.
function render({ model, el }) {
  el.classList.add("rlw-busy");
  let timer = null;
  const stop = () => {
    if (timer !== null) clearInterval(timer);
    timer = null;
  };
  const update = () => {
    stop();
    const label = model.get("label");
    el.textContent = "";
    el.dataset.busy = "";
    el.style.display = "none";
    if (!label) return;
    const started = performance.now();
    const tick = () => {
      const seconds = (performance.now() - started) / 1000;
      if (seconds < model.get("delay")) return;
      el.style.display = "";
      el.dataset.busy = label;
      el.textContent = `⏳ ${label}… ${Math.floor(seconds)} s`;
    };
    timer = setInterval(tick, 250);
    tick();
  };
  model.on("change:label", update);
  update();
  return stop;
}

export default { render };
