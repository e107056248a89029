// Drives rlworkbench's component-graph viewer in JupyterLab in headless Chromium (playwright-core, Debian's
// chromium): the config open in the editor, "Open With → Component graph" beside it; the node labels' on-screen
// height (bounding boxes) and the zoom % as it opens; a click on a component; the config edited and saved in the
// editor (the viewer redraws, its filters and zoom as they were); saved invalid (the last good graph greyed under
// "last good graph — …"); fixed on disk behind the lab's back and Reload pressed; −, + and Fit. The server runs
// with expose_app_in_browser, so the driver reaches JupyterLab's commands as window.jupyterapp.
//
// Usage: node drive_lab_graph_viewer.mjs CONFIG.json (url, config_file, config_on_disk, config_text,
// edited_text, invalid_text, fixed_text, markers, screenshots, chromium, timeouts_ms)
// Prints one JSON object on stdout: what was seen, and `problems`.
import { readFileSync, writeFileSync } from 'node:fs';
import { drivePage, poll, shot } from './browser_session.mjs';

const cfg = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const result = { problems: [], console_errors: [], timings_s: {} };
const started = Date.now();
const log = (msg) => process.stderr.write(`[graph ${((Date.now() - started) / 1000).toFixed(1)}s] ${msg}\n`);
const mark = (name) => { result.timings_s[name] = Number(((Date.now() - started) / 1000).toFixed(1)); };

// Runs in the page: what the viewer shows now — its state, zoom, filters, the node labels' boxes on screen.
function viewer() {
  const root = document.querySelector('.rlwb-graph');
  const viewport = root?.querySelector('.rlwb-graph-viewport');
  const svg = root?.querySelector('.rlwb-graph-canvas svg');
  if (!root || !viewport || !svg) return null;
  const port = viewport.getBoundingClientRect();
  const drawing = svg.getBoundingClientRect();
  const pxPerUnit = drawing.width / svg.viewBox.baseVal.width;
  const labels = [...svg.querySelectorAll('g.node text')].map((text) => ({
    box: text.getBoundingClientRect(), font: parseFloat(text.getAttribute('font-size')) * pxPerUnit,
  })).filter(({ box }) => box.height > 0);
  const inView = labels.filter(({ box }) => box.top >= port.top && box.bottom <= port.bottom &&
    box.left >= port.left && box.right <= port.right);
  const style = (node) => { const s = getComputedStyle(node); return { opacity: Number(s.opacity), filter: s.filter }; };
  const heights = labels.map(({ box }) => box.height).sort((a, b) => a - b);
  const tab = [...(window.jupyterapp?.shell.widgets('main') ?? [])].find((w) => w.node.contains(root));
  return {
    state: root.dataset.graphState ?? null,
    in_front: tab?.isVisible ?? false,
    draws: Number(root.dataset.draws ?? 0),
    loading: root.dataset.loading === 'yes',
    zoom_text: root.querySelector('.rlwb-zoom-level')?.innerText ?? '',
    scale: Number(root.querySelector('.rlwb-graph-canvas').dataset.scale ?? 0),
    depth: root.querySelector('.rlwb-depth').value,
    api: root.querySelector('.rlwb-api').value,
    message: root.querySelector('.rlwb-graph-message')?.innerText ?? '',
    details: root.querySelector('.rlwb-graph-details')?.innerText.slice(0, 800) ?? '',
    clusters: svg.querySelectorAll('g.cluster').length,
    svg_text: svg.textContent,
    label_count: labels.length,
    labels_in_view: inView.length,
    label_height_min: heights[0] ?? 0,
    label_height_median: heights[Math.floor(heights.length / 2)] ?? 0,
    label_font_min_px: Math.min(...labels.map(({ font }) => font)),
    drawing: { width: Math.round(drawing.width), height: Math.round(drawing.height) },
    viewport: { width: viewport.clientWidth, height: viewport.clientHeight },
    stale_body: root.querySelector('.rlwb-graph-body').classList.contains('rlwb-stale'),
    canvas_style: style(root.querySelector('.rlwb-graph-canvas')),
    details_style: style(root.querySelector('.rlwb-graph-details')),
  };
}

// Runs in the page: the editor's text replaced and saved through its document context (what Ctrl+S does).
async function saveInEditor({ path, text }) {
  const widget = [...window.jupyterapp.shell.widgets('main')]
    .find((w) => w.context?.path === path && w.content?.editor);
  if (!widget) throw new Error(`no editor open on ${path}`);
  widget.content.model.sharedModel.setSource(text);
  await widget.context.save();
}

/** Saves `text` through `save`, then reads the viewer until `until(seen)`: `{ seconds, seen, ok }`. */
async function saveAndWait(page, save, until, timeoutMs) {
  const before = Date.now();
  await save();
  const seen = await poll(page, viewer, (v) => Boolean(v) && until(v), timeoutMs, 50);
  return { seconds: Number(((Date.now() - before) / 1000).toFixed(2)), seen: seen.value, ok: seen.ok };
}

/**
 * Brings the graph viewer's tab to the front if it is hidden: a late open can take the front after the viewer drew
 * (in CI the URL's own open of the editor did: a 30 s click timeout). Each time is counted in `result.front_retaken`.
 */
async function viewerToFront(page, graphId, why) {
  const visible = await page.evaluate((id) => {
    const shell = window.jupyterapp.shell;
    if ([...shell.widgets('main')].find((w) => w.id === id)?.isVisible) return true;
    shell.activateById(id);
    return false;
  }, graphId);
  if (!visible) {
    result.front_retaken = (result.front_retaken ?? 0) + 1;
    log(`the graph tab was hidden before ${why}: brought back`);
  }
}

/** Clicks `selector` in the graph viewer, its tab brought to the front first (and again if it is taken meanwhile). */
async function clickInViewer(page, graphId, selector, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    await viewerToFront(page, graphId, `a click on ${selector}`);
    try {
      await page.locator(selector).first().click({ timeout: Math.max(1000, Math.min(5000, deadline - Date.now())) });
      return;
    } catch (err) {
      if (err.name !== 'TimeoutError' || Date.now() >= deadline) throw err;
    }
  }
}

const brief = (v) => v && Object.fromEntries(Object.entries(v).filter(([key]) => key !== 'svg_text'));

async function run(page) {
  const t = cfg.timeouts_ms;
  await page.goto(cfg.url, { timeout: t.load });
  await page.waitForFunction(() => window.jupyterapp?.commands.hasCommand('docmanager:open'), null,
    { timeout: t.load });
  await page.evaluate(() => window.jupyterapp.restored);
  await page.evaluate((path) => window.jupyterapp.commands.execute('docmanager:open', { path, factory: 'Editor' }),
    cfg.config_file);
  await page.waitForFunction((path) => [...window.jupyterapp.shell.widgets('main')]
    .some((w) => w.context?.path === path && w.content?.editor), cfg.config_file, { timeout: t.load });
  mark('editor_open');

  // The graph viewer: registered for .json ("Open With"), opening legible.
  result.factories = await page.evaluate((path) => window.jupyterapp.docRegistry
    .preferredWidgetFactories(path).concat([...window.jupyterapp.docRegistry.widgetFactories()])
    .filter((f) => f.fileTypes.includes('json')).map((f) => f.name), cfg.config_file);
  const opening = Date.now();
  const graphId = await page.evaluate(async (path) => {
    const app = window.jupyterapp;
    const widget = await app.commands.execute('docmanager:open', { path, factory: 'Component graph' });
    app.shell.activateById(widget.id);
    return widget.id;
  }, cfg.config_file);
  // the tab in front, and kept there: any late open (in CI once the URL's own, before the URL named no file) would
  // take the front
  const graphDeadline = Date.now() + t.graph;
  let drawn;
  do {
    await page.evaluate((id) => window.jupyterapp.shell.activateById(id), graphId);
    drawn = await poll(page, viewer, (v) => v?.state === 'drawn' && v.clusters >= 3 && v.viewport?.width > 0,
      500, 50);
  } while (!drawn.ok && Date.now() < graphDeadline);
  result.open_to_graph_s = Number(((Date.now() - opening) / 1000).toFixed(2));
  if (!drawn.ok) throw new Error(`the graph viewer did not draw: ${JSON.stringify(brief(drawn.value))}`);
  // measured in front: a hidden tab's labels have no boxes (CI once read 0 px after the editor took the front)
  do {
    await viewerToFront(page, graphId, 'the opening measure');
    await page.waitForTimeout(300); // a resize after the first paint settles the opening scale
    result.opened = brief(await page.evaluate(viewer));
  } while (!(result.opened?.in_front && result.opened.label_count > 0) && Date.now() < graphDeadline);
  log(`opened in ${result.open_to_graph_s} s at ${result.opened?.zoom_text}`);
  result.screenshot_opened = await shot(page, cfg.screenshots.opened);

  await clickInViewer(page, graphId, '.rlwb-graph g.cluster[id="component-dqn/policy"] > text', t.render);
  const details = await poll(page, viewer, (v) => v.details.includes('dqn/policy'), t.render);
  result.graph_details = details.value.details;
  mark('graph_viewed');
  result.screenshot_graph = await shot(page, cfg.screenshots.graph);

  // Saved in the editor: redrawn with the new capacity, filters and zoom kept, the policy still selected.
  const edited = await saveAndWait(page, () => page.evaluate(saveInEditor, { path: cfg.config_file,
    text: cfg.edited_text }), (v) => v.svg_text.includes(cfg.markers.edited) && v.state === 'drawn', t.redraw);
  result.edited = { seconds: edited.seconds, ok: edited.ok, seen: brief(edited.seen) };
  log(`redrawn ${edited.ok ? 'after' : 'NOT within'} ${edited.seconds} s of the save`);

  // Saved invalid: the last good graph stays, greyed, under the reason.
  const invalid = await saveAndWait(page, () => page.evaluate(saveInEditor, { path: cfg.config_file,
    text: cfg.invalid_text }), (v) => v.state === 'stale', t.redraw);
  result.invalid = { seconds: invalid.seconds, ok: invalid.ok, seen: brief(invalid.seen),
    still_edited: invalid.seen?.svg_text.includes(cfg.markers.edited) ?? false };
  result.screenshot_stale = await shot(page, cfg.screenshots.stale);

  // Fixed on disk behind the lab's back: nothing tells the viewer, Reload does.
  writeFileSync(cfg.config_on_disk, cfg.fixed_text);
  await page.waitForTimeout(1500);
  result.before_reload = brief(await page.evaluate(viewer));
  await viewerToFront(page, graphId, 'Reload'); // before the clock starts: the redraw is timed, not the tab's return
  await page.locator('.rlwb-graph .rlwb-reload').waitFor({ state: 'visible', timeout: t.render });
  const reloaded = await saveAndWait(page, () => clickInViewer(page, graphId, '.rlwb-graph .rlwb-reload', t.render),
    (v) => v.svg_text.includes(cfg.markers.fixed) && v.state === 'drawn', t.redraw);
  result.reloaded = { seconds: reloaded.seconds, ok: reloaded.ok, seen: brief(reloaded.seen) };

  // Zoom controls: + steps up by 25 %, Fit shows the whole drawing, a click on the % goes back.
  await clickInViewer(page, graphId, '.rlwb-graph .rlwb-zoom-in', t.render);
  result.zoomed_in = brief(await page.evaluate(viewer));
  await clickInViewer(page, graphId, '.rlwb-graph .rlwb-zoom-fit', t.render);
  result.fitted = brief(await page.evaluate(viewer));
  await clickInViewer(page, graphId, '.rlwb-graph .rlwb-zoom-level', t.render);
  result.back = brief(await page.evaluate(viewer));
  mark('done');
}

await drivePage(cfg, result, started, run, async (page, exitCode) => {
  if (exitCode) await shot(page, cfg.screenshots.failure).catch(() => {});
});
