// Drives a notebook whose cells build an agent, display it (no rlworkbench.visualize import) and open a
// GraphExplorer on it, in JupyterLab with headless Chromium (playwright-core, Debian's chromium), measuring what a
// researcher sees: each display cell's time from "run" to its graph on screen, the on-screen height of node labels
// (bounding boxes), the zoom the view says, and which nodes are inside the visible part; then the explorer's
// "100 %", "fit" and zoom-label buttons. Screenshots of the inline drawing and of the explorer.
//
// Usage: node drive_graph_views.mjs CONFIG.json (url, screenshot, chromium, chromium_args, viewport, timeouts_ms,
// cells: {build, inline, explorer} cell indices). Prints one JSON object on stdout: `steps`, `timings_s` and
// `problems`. The server runs with expose_app_in_browser: cells are run with JupyterLab's own commands.
import { readFileSync } from 'node:fs';
import { drivePage, poll, shot } from './browser_session.mjs';

const cfg = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const result = { problems: [], console_errors: [], timings_s: {}, steps: {} };
const started = Date.now();
const log = (msg) => process.stderr.write(`[graph views ${((Date.now() - started) / 1000).toFixed(1)}s] ${msg}\n`);
const seconds = (since) => Number(((Date.now() - since) / 1000).toFixed(2));
const PANE = '.rlw-graph-pane';

// Runs in the page: the drawing under `root` (a selector) as seen on screen — node labels' heights (all, and those
// inside the `clip` box: what is visible), the home nodes (the drawn component's own API methods) in view, the
// zoom text, the SVG's drawn width against its natural width, and the pane's data-* attributes.
function seen({ root, clip, zoom }) {
  const base = document.querySelector(root);
  if (!base) return null;
  const box = base.querySelector(clip)?.getBoundingClientRect();
  const inside = (r) => box && r.width > 0 && r.bottom > box.top && r.top < box.bottom && r.right > box.left
    && r.left < box.right;
  const texts = [...base.querySelectorAll(`${clip} svg g.node text`)].map((t) => t.getBoundingClientRect());
  const visible = texts.filter(inside);
  const svg = base.querySelector(`${clip} svg`);
  const pt = parseFloat(svg?.getAttribute('width') ?? '0');
  const round = (v) => Number(v.toFixed(2));
  return {
    clusters: base.querySelectorAll(`${clip} svg g.cluster`).length,
    labels: texts.length,
    min_label_px: texts.length ? round(Math.min(...texts.map((r) => r.height))) : null,
    visible_labels: visible.length,
    visible_min_label_px: visible.length ? round(Math.min(...visible.map((r) => r.height))) : null,
    home_in_view: [...base.querySelectorAll(`${clip} svg g.rlw-home`)].filter((g) => inside(g.getBoundingClientRect()))
      .length,
    zoom: base.querySelector(zoom)?.textContent.trim() ?? '',
    drawn_over_natural: svg && pt ? round(svg.getBoundingClientRect().width / (pt * 4 / 3)) : null,
    clip: box ? { width: round(box.width), height: round(box.height) } : null,
    data: { ...(base.querySelector('.rlw-graph-pane')?.dataset ?? {}) },
  };
}

const cellSelector = (index) => `.jp-NotebookPanel:not(.lm-mod-hidden) .jp-CodeCell:nth-child(${index + 1})`;

// Runs cell `index` with JupyterLab's command and waits until `ready(view)` holds for what `spec` sees; returns
// the seconds from the command to that moment and the last view.
async function runCell(page, index, spec, ready, timeoutMs) {
  const at = Date.now();
  await page.evaluate((i) => {
    window.jupyterapp.shell.currentWidget.content.activeCellIndex = i;
    void window.jupyterapp.commands.execute('notebook:run-cell');
  }, index);
  const done = await poll(page, seen, (view) => view !== null && ready(view), timeoutMs, 50, spec);
  return { seconds: seconds(at), ok: done.ok, view: done.value };
}

async function idleKernel(page, timeoutMs) {
  return page.waitForFunction(() => {
    const session = window.jupyterapp.shell.currentWidget?.sessionContext?.session;
    return session?.kernel?.status === 'idle';
  }, null, { timeout: timeoutMs, polling: 200 }).then(() => true, () => false);
}

async function run(page) {
  const t = cfg.timeouts_ms;
  await page.goto(cfg.url, { timeout: t.load });
  await page.waitForFunction(() => window.jupyterapp && document.querySelector('.jp-NotebookPanel .jp-CodeCell'),
    null, { timeout: t.load });
  if (!(await idleKernel(page, t.kernel))) throw new Error('the notebook kernel never became idle');
  await page.evaluate(() => window.jupyterapp.commands.execute('application:toggle-left-area')).catch(() => {});

  const buildAt = Date.now();
  await page.evaluate((i) => {
    window.jupyterapp.shell.currentWidget.content.activeCellIndex = i;
    void window.jupyterapp.commands.execute('notebook:run-cell');
  }, cfg.cells.build);
  const numbered = await page.waitForFunction((sel) => /^\[\d+\]/.test(document.querySelector(sel)
    ?.querySelector('.jp-InputArea-prompt')?.textContent?.trim() ?? ''), cellSelector(cfg.cells.build),
  { timeout: t.execute, polling: 200 }).then(() => true, () => false);
  if (!numbered || !(await idleKernel(page, t.kernel))) throw new Error('the cell building the agent did not finish');
  result.timings_s.build_cell = seconds(buildAt);
  log('agent built');

  // The agent displayed inline: cell → graph on screen, then its labels and zoom.
  const inline = { root: cellSelector(cfg.cells.inline), clip: '.rlw-graph', zoom: '.rlw-graph-caption' };
  const shown = await runCell(page, cfg.cells.inline, inline, (view) => view.clusters > 8, t.execute);
  result.timings_s.inline_cell_to_graph = shown.seconds;
  await page.locator(inline.root).evaluate((node) => node.scrollIntoView({ block: 'start' }));
  await page.waitForTimeout(300);
  result.steps.inline = { ok: shown.ok, ...(await page.evaluate(seen, inline)) };
  await shot(page, cfg.screenshot.replace(/\.png$/, '-inline.png'));
  log(`inline: ${JSON.stringify(result.steps.inline)}`);

  // The explorer: cell → graph on screen (drawn and zoomed), then what its pane shows at each button.
  const explorer = { root: cellSelector(cfg.cells.explorer), clip: '.rlw-graph-viewport', zoom: '.rlw-graph-zoom' };
  const opened = await runCell(page, cfg.cells.explorer, explorer,
    (view) => view.clusters > 8 && Boolean(view.data.scale), t.execute);  // drawn, and placed by the pane
  result.timings_s.explorer_cell_to_graph = opened.seconds;
  await page.locator(`${explorer.root} ${PANE}`).evaluate((node) => node.scrollIntoView({ block: 'center' }));
  await page.waitForTimeout(300);
  result.steps.explorer_opened = { ok: opened.ok, ...(await page.evaluate(seen, explorer)) };
  result.screenshot = await shot(page, cfg.screenshot);
  for (const [name, selector] of [['natural', "button:text-is('100 %')"], ['fit', "button:text-is('fit')"],
    ['reopened', '.rlw-graph-zoom']]) {
    await page.locator(`${explorer.root} ${PANE} ${selector}`).click({ timeout: t.interaction });
    await page.waitForTimeout(200);
    result.steps[`explorer_${name}`] = await page.evaluate(seen, explorer);
  }
  log(`explorer: ${JSON.stringify(result.steps.explorer_opened)}`);
  result.errors = await page.evaluate(() => [...document.querySelectorAll(
    '.jp-OutputArea-output[data-mime-type="application/vnd.jupyter.stderr"]')]
    .map((node) => node.innerText).filter((text) => /Traceback|Error:/.test(text)).map((text) => text.slice(0, 1500)));
}

await drivePage(cfg, result, started, run, async (page, exitCode) => {
  if (exitCode) await shot(page, cfg.screenshot.replace(/\.png$/, '-failure.png')).catch(() => {});
});
