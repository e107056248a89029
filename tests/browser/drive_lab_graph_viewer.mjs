// Drives rlworkbench's component-graph viewer in JupyterLab in headless Chromium (playwright-core, Debian's
// chromium): open a config with "Open With → Component graph" and click a component. The server runs with
// expose_app_in_browser, so the driver reaches JupyterLab's commands as window.jupyterapp.
//
// Usage: node drive_lab_graph_viewer.mjs CONFIG.json (url, config_file, screenshots, chromium, timeouts_ms)
// Prints one JSON object on stdout: what was seen, and `problems`.
import { readFileSync } from 'node:fs';
import { drivePage, poll, shot } from './browser_session.mjs';

const cfg = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const result = { problems: [], console_errors: [], timings_s: {} };
const started = Date.now();
const mark = (name) => { result.timings_s[name] = Number(((Date.now() - started) / 1000).toFixed(1)); };

async function run(page) {
  const t = cfg.timeouts_ms;
  await page.goto(cfg.url, { timeout: t.load });
  await page.waitForFunction(() => window.jupyterapp?.docRegistry, null, { timeout: t.load });
  mark('lab_loaded');

  // The graph viewer: registered for .json ("Open With"), drawing a shipped config, a click shows a component.
  result.factories = await page.evaluate((path) => window.jupyterapp.docRegistry
    .preferredWidgetFactories(path).concat([...window.jupyterapp.docRegistry.widgetFactories()])
    .filter((f) => f.fileTypes.includes('json')).map((f) => f.name), cfg.config_file);
  await page.evaluate((path) => window.jupyterapp.commands.execute('docmanager:open',
    { path, factory: 'Component graph' }), cfg.config_file);
  const drawn = await poll(page, () => document.querySelectorAll('.rlwb-graph .rlwb-graph-canvas svg g.cluster').length,
    (n) => n >= 3, t.graph);
  result.graph_clusters = drawn.value;
  if (!drawn.ok) throw new Error(`the graph viewer drew ${drawn.value} clusters`);
  await page.locator('.rlwb-graph g.cluster[id="component-dqn/policy"] > text').first().click();
  const details = await poll(page, () => document.querySelector('.rlwb-graph-details')?.innerText ?? '',
    (text) => text.includes('dqn/policy'), t.render);
  result.graph_details = details.value.slice(0, 800);
  result.graph_message = await page.evaluate(() => document.querySelector('.rlwb-graph-message')?.innerText ?? '');
  mark('graph_viewed');
  result.screenshot_graph = await shot(page, cfg.screenshots.graph);
}

await drivePage(cfg, result, started, run, async (page, exitCode) => {
  if (exitCode) await shot(page, cfg.screenshots.failure).catch(() => {});
});
