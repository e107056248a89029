// Drives rlworkbench's JupyterLab extension in headless Chromium (playwright-core, Debian's chromium): open the
// runs panel from its sidebar tab, run a notebook that promotes a short run and a long one, watch the short one
// appear, progress and finish in the panel, press Stop on the long one. Screenshots of the panel. The server runs
// with expose_app_in_browser, so the driver reaches JupyterLab's commands as window.jupyterapp. (The component-
// graph viewer has its own driver, drive_lab_graph_viewer.mjs.)
//
// Usage: node drive_lab_extension.mjs CONFIG.json (url, notebook, screenshots, chromium, timeouts_ms)
// Prints one JSON object on stdout: what was seen, and `problems`.
import { readFileSync } from 'node:fs';
import { drivePage, poll, shot } from './browser_session.mjs';

const cfg = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const result = { problems: [], console_errors: [], short_run: [], long_run: [], timings_s: {} };
const started = Date.now();
const log = (msg) => process.stderr.write(`[lab ${((Date.now() - started) / 1000).toFixed(1)}s] ${msg}\n`);
const mark = (name) => { result.timings_s[name] = Number(((Date.now() - started) / 1000).toFixed(1)); };

// Runs in the page: the cards of the runs panel, oldest run last.
function cards() {
  return [...document.querySelectorAll('#rlworkbench-runs .rlwb-run')].map((card) => ({
    id: card.dataset.runId,
    state: card.dataset.state,
    value: Number(card.querySelector('progress')?.value ?? 0),
    max: Number(card.querySelector('progress')?.max ?? 0),
    stop: Boolean(card.querySelector('.rlwb-stop')),
    text: card.innerText.slice(0, 300),
  }));
}

function notebookText() {
  return [...document.querySelectorAll('.jp-NotebookPanel .jp-OutputArea-output')].map((e) => e.innerText).join('\n');
}

async function run(page) {
  const t = cfg.timeouts_ms;
  await page.goto(cfg.url, { timeout: t.load });
  await page.waitForFunction(() => window.jupyterapp && document.querySelector('.jp-NotebookPanel .jp-CodeCell'),
    null, { timeout: t.load });
  const idle = await page.waitForFunction(() => {
    const widget = window.jupyterapp.shell.currentWidget;
    return widget?.sessionContext?.session?.kernel?.status === 'idle';
  }, null, { timeout: t.kernel, polling: 500 }).then(() => true, () => false);
  if (!idle) throw new Error('the notebook kernel never became idle');
  mark('kernel_idle');

  // The panel opens from its own sidebar tab.
  const tab = page.locator('.jp-SideBar.jp-mod-left .lm-TabBar-tab[data-id="rlworkbench-runs"]');
  if (!(await tab.count())) throw new Error('no rlworkbench tab in the left sidebar');
  await tab.click();
  await page.waitForSelector('#rlworkbench-runs:not(.lm-mod-hidden)', { timeout: t.render });
  result.panel_opened = true;

  // Runs of other tests may be listed already (the server reads the session's runs directory): only new cards count.
  const before = new Set((await page.evaluate(cards)).map((c) => c.id));
  // Not awaited: the command's promise settles only when the last cell has run (it waits for the Stop below).
  await page.evaluate(() => { void window.jupyterapp.commands.execute('notebook:run-all-cells'); });
  log('cells started');
  // The short run: seen while it goes (its bar moving), then finished.
  let shortId = null;
  const deadline = Date.now() + t.short_run;
  while (Date.now() < deadline) {
    const now = (await page.evaluate(cards)).filter((c) => !before.has(c.id));
    const short = shortId ? now.find((c) => c.id === shortId) : now[now.length - 1];
    if (short) {
      shortId = short.id;
      const last = result.short_run[result.short_run.length - 1];
      if (!last || last.state !== short.state || last.value !== short.value) {
        result.short_run.push({ state: short.state, value: short.value, max: short.max });
      }
      if (short.state === 'finished') break;
    }
    await page.waitForTimeout(250);
  }
  mark('short_run_seen');

  // The long run: Stop pressed in the panel; the notebook's cell waits for run.state to say so.
  const running = await poll(page, cards, (now) => now.some((c) => c.id !== shortId && !before.has(c.id) &&
    c.state === 'running' && c.stop),
    t.long_run);
  if (!running.ok) throw new Error(`the long run never showed as running with a Stop button: ${JSON.stringify(running.value)}`);
  const longId = running.value.find((c) => c.id !== shortId && !before.has(c.id) && c.state === 'running').id;
  result.long_run.push(running.value.find((c) => c.id === longId));
  await shot(page, cfg.screenshots.panel);
  await page.locator(`#rlworkbench-runs .rlwb-run[data-run-id="${longId}"] .rlwb-stop`).click();
  log('stop clicked');
  const stopped = await poll(page, () => document.body.innerText.includes('LONG STATE stopped'),
    (seen) => seen, t.long_run);
  result.notebook_saw_stopped = stopped.ok;
  const card = await poll(page, cards, (now) => now.some((c) => c.id === longId && c.state === 'stopped'), t.render);
  result.long_run.push(card.value.find((c) => c.id === longId));
  result.notebook_text = (await page.evaluate(notebookText)).slice(-1500);
  mark('long_run_stopped');
  result.screenshot_panel = await shot(page, cfg.screenshots.panel);
}

await drivePage(cfg, result, started, run, async (page, exitCode) => {
  if (exitCode) await shot(page, cfg.screenshots.failure).catch(() => {});
});
