// Drives the runs panel's Dataflow tab in headless Chromium (playwright-core, Debian's chromium): the card of a run
// whose folder holds a dataflow.json has a Dataflow button (a run without one has none); it opens a main-area panel
// with the plan's drawing; once the driver writes `cfg.rewrite_signal`, the test rewrites dataflow.json and the
// drawing must show the new figures without a click. Screenshots of the panel before and after.
//
// Usage: node drive_lab_dataflow.mjs CONFIG.json (url, run, plain_run, rewrite_signal, new_figure, screenshots,
// chromium, viewport, timeouts_ms). Prints one JSON object on stdout: what was seen, and `problems`.
import { readFileSync, writeFileSync } from 'node:fs';
import { drivePage, poll, shot } from './browser_session.mjs';

const cfg = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const result = { problems: [], console_errors: [], timings_s: {} };
const started = Date.now();
const mark = (name) => { result.timings_s[name] = Number(((Date.now() - started) / 1000).toFixed(1)); };

// Runs in the page: which cards offer a Dataflow button.
function cards({ run, plain }) {
  const card = (id) => document.querySelector(`#rlworkbench-runs .rlwb-run[data-run-id="${id}"]`);
  const has = (id) => Boolean(card(id)?.querySelector('.rlwb-dataflow-button'));
  return { run: Boolean(card(run)), plain: Boolean(card(plain)), run_button: has(run), plain_button: has(plain) };
}

// Runs in the page: what the Dataflow panel of `id` shows.
function drawing(id) {
  const panel = document.querySelector(`.rlwb-dataflow[data-run-id="${id}"]`);
  const svg = panel?.querySelector('svg');
  if (!panel || !svg || panel.offsetParent === null) return null;
  const tip = (g) => {
    const link = g.querySelector('a');
    return link ? (link.getAttributeNS('http://www.w3.org/1999/xlink', 'title') ?? link.getAttribute('xlink:title'))
      : null;
  };
  const box = svg.getBoundingClientRect();
  return {
    wall_time: panel.dataset.wallTime ?? null,
    message: panel.querySelector('.rlwb-graph-message')?.innerText ?? '',
    texts: [...svg.querySelectorAll('text')].map((text) => text.textContent),
    nodes: [...svg.querySelectorAll('g.node')].map((g) => ({ id: g.id, classes: g.getAttribute('class'),
      texts: [...g.querySelectorAll('text')].map((text) => text.textContent), tooltip: tip(g),
      restart_fill: [...g.querySelectorAll('text')].find((t) => t.textContent.startsWith('↻'))?.getAttribute('fill')
        ?? null })),
    bottleneck: [...svg.querySelectorAll('g.dataflow-bottleneck')].map((g) => ({ tooltip: tip(g),
      stroke: g.querySelector('path')?.getAttribute('stroke'),
      width: Number(g.querySelector('path')?.getAttribute('stroke-width') ?? 1),
      texts: [...g.querySelectorAll('text')].map((text) => text.textContent) })),
    size: [Math.round(box.width), Math.round(box.height)],
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

  const listed = await poll(page, cards, (seen) => seen.run && seen.plain && seen.run_button, t.render, 300,
    { run: cfg.run, plain: cfg.plain_run });
  result.cards = listed.value;
  if (!listed.ok) throw new Error(`the run's card has no Dataflow button: ${JSON.stringify(listed.value)}`);
  await page.locator(`#rlworkbench-runs .rlwb-run[data-run-id="${cfg.run}"] .rlwb-dataflow-button`).click();
  const first = await poll(page, drawing, (seen) => seen !== null && seen.nodes.length > 0, t.render, 300, cfg.run);
  if (!first.ok) throw new Error('the Dataflow panel never showed a drawing');
  result.first = first.value;
  result.tab_label = await page.evaluate((id) => window.jupyterapp.shell.currentWidget?.id === `rlworkbench-dataflow-${id}`
    ? window.jupyterapp.shell.currentWidget.title.label : null, cfg.run);
  mark('drawn');
  result.screenshot_first = await shot(page, cfg.screenshots.first);

  writeFileSync(cfg.rewrite_signal, String(Date.now())); // the test now rewrites dataflow.json
  const shownAt = Date.now();
  const fresh = await poll(page, drawing, (seen) => seen !== null && seen.texts.some((text) => text.includes(cfg.new_figure)),
    t.refresh, 250, cfg.run);
  result.refreshed = fresh.value;
  result.refresh_ok = fresh.ok;
  result.refresh_seconds = Number(((Date.now() - shownAt) / 1000).toFixed(1));
  mark('refreshed');
  result.screenshot_refreshed = await shot(page, cfg.screenshots.refreshed);
}

await drivePage(cfg, result, started, run, async (page, exitCode) => {
  if (exitCode) {
    await shot(page, cfg.screenshots.failure).catch(() => undefined);
  }
});
