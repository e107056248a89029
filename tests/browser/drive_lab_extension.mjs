// Drives rlworkbench's JupyterLab extension in headless Chromium (playwright-core, Debian's chromium): open the
// runs panel from its sidebar tab, run a notebook (in a subfolder of the server's root) that promotes a short run
// and a long one of another config, time the cell until its live widget shows, watch the short one appear,
// progress and finish in the panel, open its TensorBoard (the dashboard must show the run's scalars) and its Folder
// (the file browser must list the run directory), press Stop on the long one, then Resume on it (and Stop again). Screenshots of the panel. The server runs
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
    resume: card.querySelector('.rlwb-resume')?.innerText ?? null,
    title: card.querySelector('.rlwb-run-title')?.innerText ?? '',
    folder: card.querySelector('.rlwb-folder')?.title ?? '',
    identity: card.querySelector('.rlwb-identity')?.innerText ?? '',
    tooltips: [...card.querySelectorAll('.rlwb-counts, .rlwb-speed, .rlwb-return')].map((e) => e.title),
    text: card.innerText.slice(0, 300),
  }));
}

// Runs in the page: the notebook's live run widget (its heading, Stop and Save figure) and when the cell started.
function liveWidget() {
  const outputs = [...document.querySelectorAll('.jp-NotebookPanel .jp-OutputArea-output')];
  const at = outputs.map((e) => /PROMOTE AT ([\d.]+)/.exec(e.innerText)).find(Boolean);
  const view = document.querySelector('.jp-NotebookPanel .widget-vbox .widget-hprogress')?.closest('.widget-vbox');
  const buttons = view ? [...view.querySelectorAll('button')].map((b) => b.innerText.trim()) : [];
  return { promoted_at: at ? Number(at[1]) : null, now: Date.now() / 1000,
    heading: view ? view.querySelector('.widget-html')?.innerText ?? '' : null, buttons };
}

// Runs in the page: what the file browser shows (its path and the names it lists).
function fileBrowser() {
  const browser = [...window.jupyterapp.shell.widgets('left')].find((widget) => widget.id === 'filebrowser');
  return { path: browser?.model?.path ?? null,
    items: [...document.querySelectorAll('.jp-FileBrowser .jp-DirListing-itemText')].map((e) => e.innerText) };
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
  // The short run: its live widget in the notebook (timed from the cell's start), then seen in the panel while it
  // goes (its bar moving), then finished.
  let shortId = null;
  const deadline = Date.now() + t.short_run;
  while (Date.now() < deadline) {
    if (!result.live_widget) {
      const live = await page.evaluate(liveWidget);
      if (live.heading && live.promoted_at) {
        result.live_widget = { ...live, cell_to_widget_s: Number((live.now - live.promoted_at).toFixed(2)) };
        log(`live widget after ${result.live_widget.cell_to_widget_s} s`);
      }
    }
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
  result.short_card = (await page.evaluate(cards)).find((c) => c.id === shortId);
  await openTensorBoard(page, shortId);
  await openFolder(page, shortId);

  // The long run: Stop pressed in the panel; the notebook's cell waits for run.state to say so.
  const running = await poll(page, cards, (now) => now.some((c) => c.id !== shortId && !before.has(c.id) &&
    c.state === 'running' && c.stop),
    t.long_run);
  if (!running.ok) throw new Error(`the long run never showed as running with a Stop button: ${JSON.stringify(running.value)}`);
  const longId = running.value.find((c) => c.id !== shortId && !before.has(c.id) && c.state === 'running').id;
  result.long_run.push(running.value.find((c) => c.id === longId));
  result.long_card = running.value.find((c) => c.id === longId);
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

  // Resume on the stopped run: the server goes on with it in a process of its own; the same card goes live again
  // (same id), and Stop stops the resumed part too.
  await page.locator(`#rlworkbench-runs .rlwb-run[data-run-id="${longId}"] .rlwb-resume`).click();
  log('resume clicked');
  const resumed = await poll(page, cards, (now) => now.some((c) => c.id === longId && c.state === 'running' &&
    c.stop && c.value > card.value.find((s) => s.id === longId).value), t.long_run);
  result.resumed_run = resumed.value.find((c) => c.id === longId) ?? null;
  if (resumed.ok) {
    await page.locator(`#rlworkbench-runs .rlwb-run[data-run-id="${longId}"] .rlwb-stop`).click();
    const again = await poll(page, cards, (now) => now.some((c) => c.id === longId && c.state === 'stopped'),
      t.long_run);
    result.stopped_again = again.value.find((c) => c.id === longId) ?? null;
  }
  mark('long_run_resumed');
  await page.evaluate(() => document.querySelector('.jp-NotebookPanel .widget-hprogress')
    ?.closest('.jp-Cell')?.scrollIntoView({ block: 'start' }));
  result.screenshot_panel = await shot(page, cfg.screenshots.panel);
}

// TensorBoard from the card: a main-area tab whose frame shows the run's scalars, not "No dashboards are active".
async function openTensorBoard(page, runId) {
  const t = cfg.timeouts_ms;
  await page.locator(`#rlworkbench-runs .rlwb-run[data-run-id="${runId}"] .rlwb-tensorboard`).click();
  await page.waitForSelector(`#rlworkbench-tensorboard-${runId} iframe`, { timeout: t.tensorboard });
  const src = await page.locator(`#rlworkbench-tensorboard-${runId} iframe`).getAttribute('src');
  const deadline = Date.now() + t.tensorboard;
  let frame = null; // the iframe element shows before its frame navigates (a loaded machine: seconds)
  while (!(frame = page.frames().find((f) => f.url().startsWith(src))) && Date.now() < deadline) {
    await page.waitForTimeout(250);
  }
  if (!frame) throw new Error(`no TensorBoard frame for ${src}`);
  const seen = { url: src };
  while (Date.now() < deadline) {
    seen.no_dashboards = await frame.getByText('No dashboards are active').count();
    seen.scalar_cards = await frame.getByText('episode/return').count();
    if (seen.no_dashboards || seen.scalar_cards) break;
    await page.waitForTimeout(500);
  }
  result.tensorboard = seen;
  log(`tensorboard: ${JSON.stringify(seen)}`);
  await shot(page, cfg.screenshots.tensorboard);
  await page.locator('#jp-main-dock-panel .lm-TabBar-tab', { hasText: 'lab_runs.ipynb' }).click(); // back
}

// Folder from the card: the file browser goes to the run directory (under the notebook's subfolder) and lists it.
async function openFolder(page, runId) {
  await page.locator(`#rlworkbench-runs .rlwb-run[data-run-id="${runId}"] .rlwb-folder`).click();
  const listed = await poll(page, fileBrowser, (seen) => seen.items.includes('config.json'), cfg.timeouts_ms.render);
  result.folder = listed.value;
  // back to the runs panel for the rest
  await page.locator('.jp-SideBar.jp-mod-left .lm-TabBar-tab[data-id="rlworkbench-runs"]').click();
  await page.waitForSelector('#rlworkbench-runs:not(.lm-mod-hidden)', { timeout: cfg.timeouts_ms.render });
}

await drivePage(cfg, result, started, run, async (page, exitCode) => {
  if (exitCode) await shot(page, cfg.screenshots.failure).catch(() => {});
});
