// Drives one notebook in a running JupyterLab with headless Chromium (playwright-core, no bundled browser):
// open it, wait for an idle kernel, Run All Cells, wait until every code cell has executed, then check the page
// (graph SVG, widget views, no tracebacks), exercise the widgets, and save a screenshot.
//
// Usage: node drive_notebook.mjs CONFIG.json   (config keys: see checks.json and tests/browser/conftest.py)
// Prints one JSON object on stdout; `problems` lists everything that was missing. Exit code 0 when it ran to the
// end (problems or not), 2 when the browser could not be driven at all (the JSON then has `fatal`).
import { readFileSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { drivePage, poll } from './browser_session.mjs';

const cfg = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const result = { problems: [], console_errors: [], timings_s: {} };
const started = Date.now();
const log = (msg) => process.stderr.write(`[drive ${((Date.now() - started) / 1000).toFixed(1)}s] ${msg}\n`);
const mark = (name) => { result.timings_s[name] = Number(((Date.now() - started) / 1000).toFixed(1)); };

// Runs in the page: the state of the notebook's cells and kernel.
function cellState(sel) {
  const panel = document.querySelector(sel.panel);
  if (!panel) return null;
  const cells = [...panel.querySelectorAll(sel.code_cell)].filter((cell) => {
    const src = cell.querySelector(sel.cell_source);
    return !src || src.textContent.trim() !== '';
  });
  const prompts = cells.map((c) => (c.querySelector(sel.prompt)?.textContent ?? '').trim());
  const errorRe = new RegExp(sel.error_pattern, 'm');
  const errors = [...panel.querySelectorAll(sel.error_output)]
    .map((e) => e.innerText)
    .filter((t) => errorRe.test(t))
    .map((t) => t.slice(0, 1500));
  return {
    kernel: panel.querySelector(sel.kernel_status)?.getAttribute('data-status') ?? 'unknown',
    total: cells.length,
    executed: prompts.filter((p) => /^\[\d+\]:?$/.test(p)).length,
    running: prompts.filter((p) => p.includes('*')).length,
    errors,
  };
}

// Runs in the page: graph SVGs inline and as <img src="data:image/svg+xml,..."> (how JupyterLab shows image/svg+xml).
function svgState(spec) {
  const roots = [...document.querySelectorAll(spec.within)];
  const found = { inline_svgs: 0, img_svgs: 0, img_svgs_loaded: 0, matches: 0 };
  for (const root of roots) {
    for (const svg of root.querySelectorAll('svg')) {
      if (svg.closest('.jp-InputPrompt, .jp-OutputPrompt, .jp-Toolbar')) continue;
      found.inline_svgs += 1;
      found.matches += svg.querySelectorAll(spec.inner).length;
    }
    for (const img of root.querySelectorAll('img[src^="data:image/svg+xml"]')) {
      found.img_svgs += 1;
      if (img.complete && img.naturalWidth > 0) found.img_svgs_loaded += 1;
      const src = img.getAttribute('src');
      const body = src.slice(src.indexOf(',') + 1);
      const text = /;base64,/.test(src.slice(0, src.indexOf(',') + 1)) ? atob(body) : decodeURIComponent(body);
      const doc = new DOMParser().parseFromString(text, 'image/svg+xml');
      found.matches += doc.querySelectorAll(spec.inner).length;
    }
  }
  return found;
}

// Runs in the page: how many elements each required selector finds, and which forbidden texts are visible.
function widgetState(spec) {
  const required = {};
  for (const [name, selector] of Object.entries(spec.require)) required[name] = document.querySelectorAll(selector).length;
  const text = [...document.querySelectorAll(spec.text_within)].map((e) => e.innerText).join('\n');
  return { required, forbidden: spec.forbid_text.filter((t) => text.includes(t)) };
}

// browser_session's poll, every 500 ms unless told: { state, ok }.
async function waitFor(page, fn, arg, done, timeoutMs, pollMs = 500) {
  const { value, ok } = await poll(page, fn, done, timeoutMs, pollMs, arg);
  return { state: value, ok };
}

async function interact(page, step, watch, timeoutMs) {
  const read = (sel) => [...document.querySelectorAll(sel)].map((e) => e.innerText).join('\n');
  const before = await page.evaluate(read, watch);
  const target = page.locator(step.selector).nth(step.index ?? 0);
  if (step.action === 'select') await target.selectOption(step.value, { timeout: timeoutMs });
  else await target.click({ timeout: timeoutMs });
  // Widget updates arrive as separate messages: wait for the expected text (or, without one, any change).
  const settled = (now) => now !== before && (!step.expect_text || now.includes(step.expect_text));
  const changed = await waitFor(page, read, watch, settled, timeoutMs);
  const after = changed.state;
  changed.ok = after !== before;
  const expectOk = !step.expect_text || after.includes(step.expect_text);
  let at = 0;
  while (at < before.length && before[at] === after[at]) at += 1;
  const around = (text) => text.slice(Math.max(0, at - 100), at + 200);
  return { ...step, changed: changed.ok, expect_ok: expectOk, changed_at: at, before: around(before), after: around(after) };
}

async function menu(page, menuLabel, itemLabel) {
  await page.keyboard.press('Escape');
  await page.click(menuLabel);
  await page.click(itemLabel);
}

async function screenshot(page, path) {
  mkdirSync(dirname(path), { recursive: true });
  const sidebarTab = page.locator(cfg.selectors.open_sidebar_tab);
  if (await sidebarTab.count()) await sidebarTab.first().click({ timeout: 5000 }).catch(() => {});
  const height = await page.evaluate((sel) => {
    const scroller = document.querySelector(sel);
    return scroller ? scroller.scrollHeight - scroller.clientHeight + window.innerHeight : window.innerHeight;
  }, cfg.selectors.scroller);
  result.page_height = height;
  await page.setViewportSize({ width: cfg.viewport.width, height: Math.min(Math.max(height, cfg.viewport.height), 16000) });
  await page.waitForTimeout(500);
  await page.screenshot({ path, fullPage: true });
  result.screenshot = path;
}

async function run(page) {
  const sel = cfg.selectors;
  const t = cfg.timeouts_ms;
  await page.goto(cfg.url, { timeout: t.load });
  await page.waitForSelector(`${sel.panel} ${sel.code_cell}`, { timeout: t.load });
  mark('notebook_loaded');
  // A notebook without kernelspec metadata asks for a kernel: accept the default choice. The indicator says
  // 'idle' before a kernel exists, so the kernel name must be set too, and idle must hold for two polls.
  let idlePolls = 0;
  const idle = await waitFor(page, async (s) => {
    document.querySelector(s.dialog_accept)?.click();
    const panel = document.querySelector(s.panel);
    const name = panel?.querySelector(s.kernel_name)?.textContent?.trim() ?? '';
    const status = panel?.querySelector(s.kernel_status)?.getAttribute('data-status');
    return name && name !== s.no_kernel_name && status === 'idle' ? 'idle' : `${name}: ${status}`;
  }, sel, (status) => (idlePolls = status === 'idle' ? idlePolls + 1 : 0) >= 2, t.kernel_idle);
  if (!idle.ok) throw new Error(`kernel never became idle (last: ${idle.state}) within ${t.kernel_idle} ms`);
  mark('kernel_idle');

  // Stored outputs must not count: clear them, then Run All (again, if the click found the command disabled).
  await menu(page, sel.edit_menu, sel.clear_all_item);
  const cleared = await waitFor(page, cellState, sel, (s) => s && s.executed === 0, t.render);
  if (!cleared.ok) throw new Error(`stored outputs could not be cleared: ${JSON.stringify(cleared.state)}`);
  const hasStarted = (s) => s && (s.running > 0 || s.executed > 0 || s.errors.length > 0);
  let exec;
  for (let attempt = 1; attempt <= 3; attempt += 1) {
    log(`running all cells (attempt ${attempt})`);
    await menu(page, sel.run_menu, sel.run_all_item);
    exec = await waitFor(page, cellState, sel, hasStarted, t.start);
    if (exec.ok) break;
  }
  if (!exec.ok) throw new Error(`Run All Cells started nothing: ${JSON.stringify(exec.state)}`);
  const finished = (s) => s && (s.kernel === 'dead'
    || (s.running === 0 && s.kernel === 'idle' && (s.executed === s.total || s.errors.length > 0)));
  exec = await waitFor(page, cellState, sel, finished, t.execute, 1000);
  result.cells = exec.state;
  mark('cells_executed');
  if (!exec.ok || exec.state.executed < exec.state.total) {
    result.problems.push(`${exec.ok ? 'execution stopped' : `not finished within ${t.execute} ms`}: `
      + `${exec.state?.executed} of ${exec.state?.total} code cells executed, ${exec.state?.running} running, `
      + `kernel ${exec.state?.kernel}`);
  }
  if (exec.state?.errors.length) result.problems.push(`error outputs in the notebook:\n${exec.state.errors.join('\n---\n')}`);

  const svgSpec = cfg.svg;
  const svg = await waitFor(page, svgState, svgSpec, (s) => s.matches >= svgSpec.min, t.render);
  result.svg = svg.state;
  if (!svg.ok) result.problems.push(`expected >= ${svgSpec.min} '${svgSpec.inner}' in a graph SVG under '${svgSpec.within}', got ${JSON.stringify(svg.state)}`);
  if (svg.state.img_svgs > svg.state.img_svgs_loaded) result.problems.push(`some SVG images did not load: ${JSON.stringify(svg.state)}`);

  const wSpec = cfg.widgets;
  const widgetsOk = (s) => Object.values(s.required).every((n) => n > 0) && s.forbidden.length === 0;
  const widgets = await waitFor(page, widgetState, wSpec, widgetsOk, t.render);
  result.widgets = widgets.state;
  for (const [name, n] of Object.entries(widgets.state.required)) {
    if (n === 0) result.problems.push(`no '${name}' widget view rendered (selector ${wSpec.require[name]})`);
  }
  if (widgets.state.forbidden.length) result.problems.push(`widget placeholders/errors left in the page: ${widgets.state.forbidden.join(', ')}`);
  mark('checked');

  result.interactions = [];
  for (const step of cfg.interactions) {
    try {
      const done = await interact(page, step, cfg.interaction_watch, t.interaction);
      result.interactions.push(done);
      if (!done.changed && step.expect_change !== false) result.problems.push(`${step.action} on '${step.selector}' did not change the outputs`);
      else if (!done.expect_ok) result.problems.push(`after ${step.action} on '${step.selector}' the outputs lack '${step.expect_text}'`);
    } catch (err) {
      result.problems.push(`${step.action} on '${step.selector}' failed: ${err.message.split('\n').slice(0, 8).join(' | ')}`);
    }
  }
  if (cfg.svg_after) {  // what the interactions must have drawn
    const drawn = await waitFor(page, svgState, cfg.svg_after, (s) => s.matches >= cfg.svg_after.min, t.render);
    result.svg_after = drawn.state;
    if (!drawn.ok) result.problems.push(`after the interactions: expected >= ${cfg.svg_after.min} '${cfg.svg_after.inner}', got ${JSON.stringify(drawn.state)}`);
  }
  if (cfg.collect_data) {  // data-* attributes of elements, for the test to check (a graph pane's zoom and focus)
    result.data = await page.evaluate((spec) => Object.fromEntries(Object.entries(spec).map(([name, selector]) =>
      [name, [...document.querySelectorAll(selector)].map((e) => ({ ...e.dataset, width: e.clientWidth }))])), cfg.collect_data);
  }
  const after = await page.evaluate(cellState, sel);
  if (after && after.errors.length > (exec.state?.errors.length ?? 0)) result.problems.push(`the interactions produced errors:\n${after.errors.join('\n---\n')}`);
  mark('interacted');
}

await drivePage(cfg, result, started, run, async (page) => {
  try {
    await screenshot(page, cfg.screenshot);
  } catch (err) {
    result.problems.push(`screenshot failed: ${err.message.split('\n')[0]}`);
  }
});
