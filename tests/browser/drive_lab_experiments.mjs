// Drives the runs panel's experiments and the compare view in headless Chromium (playwright-core, Debian's
// chromium): the panel shows an experiment as a collapsed group that expands to its trials' run cards (one with
// run records here) or to a row per trial (one without: a sweep on a cluster); ticking two runs enables Compare,
// which opens the compare view with their curves and config diff. Screenshots of the panel and the view.
//
// Usage: node drive_lab_experiments.mjs CONFIG.json (url, experiment, cluster_experiment, runs, screenshots,
// chromium, viewport, timeouts_ms). Prints one JSON object on stdout: what was seen, and `problems`.
import { readFileSync } from 'node:fs';
import { drivePage, poll, shot } from './browser_session.mjs';

const cfg = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const result = { problems: [], console_errors: [], timings_s: {} };
const started = Date.now();
const mark = (name) => { result.timings_s[name] = Number(((Date.now() - started) / 1000).toFixed(1)); };

// Runs in the page: what an experiment group shows.
function group(id) {
  const node = document.querySelector(`#rlworkbench-runs .rlwb-experiment[data-experiment-id="${id}"]`);
  if (!node) return null;
  const body = node.querySelector('.rlwb-trials');
  return {
    state: node.dataset.state,
    header: node.querySelector('.rlwb-experiment-title').innerText,
    summary: node.querySelector('.rlwb-experiment-summary').innerText,
    open: !body.hidden && body.getBoundingClientRect().height > 0,
    trials: [...node.querySelectorAll('.rlwb-trial')].map((trial) => ({
      trial: trial.dataset.trial, title: trial.querySelector('.rlwb-trial-title').innerText,
      params: trial.querySelector('.rlwb-params').innerText,
      runs: [...trial.querySelectorAll('.rlwb-run')].map((card) => card.dataset.runId),
      card_titles: [...trial.querySelectorAll('.rlwb-run-title')].map((title) => title.innerText),
    })),
    rows: [...node.querySelectorAll('.rlwb-trial-row')].map((row) => row.innerText),
  };
}

function compareView() {
  const view = [...document.querySelectorAll('.rlwb-compare')].find((node) => node.offsetParent !== null);
  if (!view) return null;
  return {
    curves: [...view.querySelectorAll('polyline.rlwb-curve')].map((line) => ({
      id: line.dataset.runId, points: line.getAttribute('points').trim().split(/\s+/).length,
      stroke: line.getAttribute('stroke') })),
    legend: [...view.querySelectorAll('.rlwb-legend-entry')].map((entry) => entry.innerText),
    diff: [...view.querySelectorAll('.rlwb-diff-row')].map((row) => [...row.cells].map((cell) => cell.innerText)),
    columns: [...view.querySelectorAll('.rlwb-diff-table th')].map((cell) => cell.innerText),
    message: view.querySelector('.rlwb-graph-message')?.innerText ?? '',
    chart_width: view.querySelector('svg.rlwb-chart')?.getBoundingClientRect().width ?? 0,
  };
}

async function run(page) {
  const t = cfg.timeouts_ms;
  await page.goto(cfg.url, { timeout: t.load });
  await page.waitForFunction(() => window.jupyterapp?.shell, null, { timeout: t.load });
  const tab = page.locator('.jp-SideBar.jp-mod-left .lm-TabBar-tab[data-id="rlworkbench-runs"]');
  await tab.waitFor({ timeout: t.load });
  await tab.click();
  await page.waitForSelector('#rlworkbench-runs:not(.lm-mod-hidden)', { timeout: t.render });
  mark('panel_open');

  // Collapsed at first; a click on its title shows its trials with their run cards.
  const first = await poll(page, group, (seen) => seen !== null, t.render, 300, cfg.experiment);
  if (!first.ok) throw new Error('the experiment group never showed');
  result.collapsed = first.value;
  await page.locator(`.rlwb-experiment[data-experiment-id="${cfg.experiment}"] .rlwb-experiment-title`).click();
  const open = await page.waitForFunction(({ id, runs }) => {
    const node = document.querySelector(`.rlwb-experiment[data-experiment-id="${id}"]`);
    return node && !node.querySelector('.rlwb-trials').hidden &&
      runs.every((run) => node.querySelector(`.rlwb-run[data-run-id="${run}"]`));
  }, { id: cfg.experiment, runs: cfg.runs }, { timeout: t.render }).then(() => true, () => false);
  if (!open) throw new Error('the expanded group does not show its trials\' runs');
  await page.waitForTimeout(2500); // a refresh in between: the group stays open
  result.expanded = await page.evaluate(group, cfg.experiment);
  await page.locator(`.rlwb-experiment[data-experiment-id="${cfg.cluster_experiment}"] .rlwb-experiment-title`).click();
  result.cluster_expanded = (await poll(page, group, (seen) => seen?.open && seen.rows.length > 0, t.render, 300,
    cfg.cluster_experiment)).value;
  mark('groups_expanded');

  // Tick the two trial runs: Compare is enabled at two.
  result.compare_disabled_before = await page.locator('#rlworkbench-runs .rlwb-compare-button').isDisabled();
  for (const id of cfg.runs) {
    await page.locator(`#rlworkbench-runs .rlwb-run[data-run-id="${id}"] input.rlwb-select`).check();
  }
  result.selection = await page.locator('#rlworkbench-runs .rlwb-selection').innerText();
  result.screenshot_panel = await shot(page, cfg.screenshots.panel);
  await page.locator('#rlworkbench-runs .rlwb-compare-button').click();
  const view = await poll(page, compareView, (seen) => seen && seen.curves.length >= 2 && seen.diff.length > 0,
    t.compare);
  result.compare = view.value;
  if (!view.ok) throw new Error(`the compare view shows ${JSON.stringify(view.value)}`);
  mark('compared');
  result.screenshot_compare = await shot(page, cfg.screenshots.compare);
}

await drivePage(cfg, result, started, run, async (page, exitCode) => {
  if (exitCode) await shot(page, cfg.screenshots.failure).catch(() => {});
});
