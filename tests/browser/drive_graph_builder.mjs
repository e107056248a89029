// Drives GraphBuilder("dqn_cartpole") in JupyterLab with headless Chromium (playwright-core, Debian's chromium) as a
// researcher meets it, measuring on-screen boxes: the cell runs (cell → widget), the first switch to TF (the busy
// line ticking meanwhile), a bad value's long error (status row, header kept on one line), back to torch, dueling
// ticked (change → redraw), the form scrolled with the mouse wheel to the layers and the optimizer (the graph pane
// still in the viewport), node labels' height in the pane and its zoom text, the tree selecting the policy (the
// pane zoomed to it), a tick in the sweep tab. Screenshot of the viewport with the builder.
//
// Usage: node drive_graph_builder.mjs CONFIG.json (url, screenshot, chromium, chromium_args, viewport, timeouts_ms)
// Prints one JSON object on stdout: what was seen and measured, and `problems`. The server runs with
// expose_app_in_browser, so the driver runs JupyterLab's commands as window.jupyterapp.
import { readFileSync } from 'node:fs';
import { drivePage, poll, shot } from './browser_session.mjs';

const cfg = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const result = { problems: [], console_errors: [], timings_s: {}, steps: {} };
const started = Date.now();
const log = (msg) => process.stderr.write(`[builder ${((Date.now() - started) / 1000).toFixed(1)}s] ${msg}\n`);
const B = '.rlw-graph-builder';
const seconds = (since) => Number(((Date.now() - since) / 1000).toFixed(2));

// Runs in the page: boxes of the builder's parts (viewport px) and what its status and busy line say.
function layout(B) {
  const box = (sel) => {
    const node = document.querySelector(sel);
    if (!node) return null;
    const r = node.getBoundingClientRect();
    return { top: r.top, bottom: r.bottom, left: r.left, right: r.right, height: r.height, width: r.width };
  };
  const buttons = [...document.querySelectorAll(`${B} .rlw-builder-header .widget-toggle-button`)]
    .map((b) => b.getBoundingClientRect().top);
  return {
    viewport: { width: window.innerWidth, height: window.innerHeight },
    header: box(`${B} .rlw-builder-header`), status_row: box(`${B} .rlw-builder-status-row`),
    tab_bar: box(`${B} .rlw-builder-side .lm-TabBar`), form: box(`${B} .rlw-config-form`),
    pane: box(`${B} .rlw-graph-pane`), pane_viewport: box(`${B} .rlw-graph-viewport`),
    toggle_tops: buttons,
    status: document.querySelector(`${B} .rlw-builder-status`)?.innerText ?? '',
    busy: document.querySelector(`${B} .rlw-busy`)?.innerText ?? '',
    zoom: document.querySelector(`${B} .rlw-graph-zoom`)?.innerText ?? '',
    scale: Number(document.querySelector(`${B} .rlw-graph-pane`)?.dataset.scale ?? 0),
    focused: document.querySelector(`${B} .rlw-graph-pane`)?.dataset.focused ?? '',
    clusters: document.querySelectorAll(`${B} .rlw-graph-pane svg g.cluster`).length,
    config_panel_overflow: (() => {  // how much wider than its box the config tab's content is (px)
      const panel = document.querySelector(`${B} .rlw-config-form`)?.closest('.rlw-builder-panel');
      return panel ? panel.scrollWidth - panel.clientWidth : null;
    })(),
    horizontal_scrollbars: [...document.querySelectorAll(`${B} .rlw-config-form, ${B} .rlw-config-form *`)]
      .filter((n) => n.scrollWidth > n.clientWidth + 1 && ['auto', 'scroll'].includes(getComputedStyle(n).overflowX))
      .length,
  };
}

// Runs in the page: the on-screen heights of the node labels in the builder's pane (those inside the pane's box).
function labelHeights(B) {
  const pane = document.querySelector(`${B} .rlw-graph-viewport`)?.getBoundingClientRect();
  if (!pane) return [];
  return [...document.querySelectorAll(`${B} .rlw-graph-viewport svg g.node text`)]
    .map((text) => text.getBoundingClientRect())
    .filter((r) => r.bottom > pane.top && r.top < pane.bottom && r.right > pane.left && r.left < pane.right)
    .map((r) => Number(r.height.toFixed(2)));
}

// Runs in the page: whether a form label with exactly this text is inside the visible part of the form's panel.
function labelInView({ B, text }) {
  const label = [...document.querySelectorAll(`${B} .rlw-config-form .widget-label`)].find((l) => l.innerText.trim() === text);
  const panel = label?.closest('.rlw-builder-panel');
  if (!label || !panel) return { found: Boolean(label), visible: false };
  const r = label.getBoundingClientRect(), p = panel.getBoundingClientRect();
  return { found: true, visible: r.height > 0 && r.top >= p.top && r.bottom <= p.bottom && r.bottom <= innerHeight,
           above: r.bottom < p.top, panel_scroll: panel.scrollTop };
}

const tab = (name) => `${B} .lm-TabBar-tab:has(.lm-TabBar-tabLabel:text-is('${name}'))`;
const statusSays = (page, text, timeoutMs) => poll(page, layout, (seen) => seen.status.includes(text), timeoutMs, 100, B);

async function run(page) {
  const t = cfg.timeouts_ms;
  await page.goto(cfg.url, { timeout: t.load });
  await page.waitForFunction(() => window.jupyterapp && document.querySelector('.jp-NotebookPanel .jp-CodeCell'),
    null, { timeout: t.load });
  const idle = await page.waitForFunction(() => window.jupyterapp.shell.currentWidget?.sessionContext?.session?.kernel
    ?.status === 'idle', null, { timeout: t.kernel, polling: 500 }).then(() => true, () => false);
  if (!idle) throw new Error('the notebook kernel never became idle');
  await page.evaluate(() => window.jupyterapp.shell.collapseLeft());  // the notebook's full width, as in the issue

  // Cell → widget: Run All until the pane shows the graph.
  const runAt = Date.now();
  await page.evaluate(() => { void window.jupyterapp.commands.execute('notebook:run-all-cells'); });
  const shown = await poll(page, layout, (seen) => seen.clusters >= 8 && seen.zoom !== '', t.execute, 200, B);
  if (!shown.ok) throw new Error(`the builder never showed its graph: ${JSON.stringify(shown.value)}`);
  result.timings_s.cell_to_widget = seconds(runAt);
  await page.locator(B).evaluate((node) => node.scrollIntoView({ block: 'start' }));
  await page.waitForTimeout(500);
  result.steps.opened = await page.evaluate(layout, B);
  result.steps.opened.label_heights = await page.evaluate(labelHeights, B);
  log('builder shown');

  // The first switch to TF at once (its import started in the background when the builder was shown): the busy
  // line ticks until it is built.
  const switchAt = Date.now();
  await page.locator(`${B} .rlw-builder-header .widget-toggle-button:text-is('tf')`).click();
  const busyTexts = new Set();
  const switched = await poll(page, (b) => {
    const seen = { busy: document.querySelector(`${b} .rlw-busy`)?.innerText ?? '',
                   status: document.querySelector(`${b} .rlw-builder-status`)?.innerText ?? '' };
    return seen;
  }, (seen) => { if (seen.busy) busyTexts.add(seen.busy); return seen.status.includes('built on tf'); },
  t.switch, 100, B);
  result.timings_s.first_tf_switch = seconds(switchAt);
  result.steps.tf_switch = { busy_texts: [...busyTexts], status: switched.value.status, ok: switched.ok };
  log(`tf switch: ${JSON.stringify(result.steps.tf_switch)}`);

  // A long error: the status row takes it, the header keeps its one line of buttons.
  const batch = page.locator(`${B} .rlw-config-form .widget-label:text-is('batch_size ≥ 1')`).locator('xpath=..')
    .locator('input');
  await batch.fill('-5');
  await batch.press('Enter');
  const failed = await statusSays(page, 'config error', t.interaction);
  result.steps.long_error = failed.value;
  await batch.fill('64');
  await batch.press('Enter');
  await statusSays(page, 'built on tf', t.interaction);

  // Back to torch (a later switch: no import left), where the change → redraw below is timed.
  const backAt = Date.now();
  await page.locator(`${B} .rlw-builder-header .widget-toggle-button:text-is('torch')`).click();
  result.steps.back_to_torch = (await statusSays(page, 'built on torch', t.interaction)).ok;
  result.timings_s.later_switch_to_torch = seconds(backAt);

  // Change → redraw: dueling on, until the status says what was added.
  const tickAt = Date.now();
  await page.locator(`${B} .rlw-config-form .widget-checkbox:has-text('dueling') input`).click();
  const redrawn = await poll(page, layout, (seen) => /\+[1-9]\d* added/.test(seen.status), t.interaction, 50, B);
  result.timings_s.change_to_redraw = seconds(tickAt);
  result.steps.dueling = { status: redrawn.value.status, ok: redrawn.ok, clusters: redrawn.value.clusters };

  // The form scrolled with the wheel (over the form) to the network's layers, then to the optimizer.
  result.steps.scrolled = {};
  for (const [name, label] of [['layers', 'units ≥ 1 ≤ 65536'], ['optimizer', 'learning_rate > 0']]) {
    if (name === 'layers') {  // the network's section is folded: open it and its first layer
      for (const header of ['network', 'dense']) {
        await page.locator(`${B} .rlw-config-form .jupyter-widget-Collapse-header`)
          .filter({ hasText: new RegExp(`^\\s*${header}\\s*$`) }).first().click({ timeout: t.interaction });
      }
    }
    const form = await page.locator(`${B} .rlw-config-form`).boundingBox();
    await page.mouse.move(form.x + form.width / 2, Math.min(form.y + 200, cfg.viewport.height - 200));
    let seen = await page.evaluate(labelInView, { B, text: label });
    for (let step = 0; step < 40 && !seen.visible; step += 1) {
      await page.mouse.wheel(0, seen.above ? -150 : 150);
      await page.waitForTimeout(60);
      seen = await page.evaluate(labelInView, { B, text: label });
    }
    result.steps.scrolled[name] = { ...seen, layout: await page.evaluate(layout, B) };
  }

  // The policy selected in the component tab: the pane zooms to it.
  await page.locator(tab('component')).click();
  await page.locator(`${B} .widget-select select`).selectOption(cfg.policy_option, { timeout: t.interaction });
  const focused = await poll(page, layout, (seen) => seen.focused === 'dqn/policy', t.interaction, 200, B);
  result.steps.focused = { ok: focused.ok, scale: focused.value.scale };
  result.steps.focused.label_heights = await page.evaluate(labelHeights, B);

  // A tick in the sweep tab counts; back on the config tab for the screenshot.
  await page.locator(tab('sweep')).click();
  await page.locator(`${B} .rlw-sweep-tab .widget-checkbox:has-text('target/tau') input`).click();
  const ticked = await poll(page, () => document.querySelector('.rlw-sweep-tab')?.innerText ?? '',
    (text) => text.includes('1 ticked of'), t.interaction);
  result.steps.sweep_tick = ticked.ok;
  await page.locator(tab('config')).click();
  await page.locator(B).evaluate((node) => node.scrollIntoView({ block: 'start' }));
  result.steps.final = await page.evaluate(layout, B);
  result.screenshot = await shot(page, cfg.screenshot);
}

await drivePage(cfg, result, started, run, async (page, exitCode) => {
  if (exitCode) await shot(page, cfg.screenshot.replace(/\.png$/, '-failure.png')).catch(() => {});
});
