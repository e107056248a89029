// What every browser driver here shares: one page in Debian's headless Chromium (playwright-core, no bundled
// browser) with its console errors collected into `result`, the driver's `run(page)` whose exception becomes
// `result.fatal` (exit code 2), then `after(page, exitCode)` (screenshots), and the result as one JSON line; and
// two helpers: `poll` (read the page until a condition holds) and `shot` (a screenshot, its folder made). A stopped
// driver's problem ends with what Playwright was still waiting on (`stoppedAt`).
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { chromium } from 'playwright-core';

export async function drivePage(cfg, result, started, run, after) {
  const browser = await chromium.launch({ executablePath: cfg.chromium, args: cfg.chromium_args, timeout: 60000 });
  let exitCode = 0;
  try {
    const page = await browser.newPage({ viewport: cfg.viewport });
    page.on('console', (m) => { if (m.type() === 'error') result.console_errors.push(m.text().slice(0, 500)); });
    page.on('pageerror', (e) => result.console_errors.push(`pageerror: ${e.message.slice(0, 500)}`));
    try {
      await run(page);
    } catch (err) {
      result.fatal = err.message;
      result.problems.push(`driver stopped: ${stoppedAt(err.message)}`);
      exitCode = 2;
    }
    await after(page, exitCode);
  } finally {
    await browser.close();
  }
  result.seconds = Number(((Date.now() - started) / 1000).toFixed(1));
  process.stdout.write(`${JSON.stringify(result)}\n`);
  process.exit(exitCode);
}

/** An error's first line and, for a Playwright timeout, the end of its call log: what it was waiting on. */
export function stoppedAt(message) {
  const [first, ...rest] = String(message ?? '').replace(/\x1b\[[\d;]*m/g, '').split('\n');
  const logAt = rest.findIndex((line) => line.trim() === 'Call log:');
  if (logAt < 0) return first;
  const waits = rest.slice(logAt + 1).map((line) => line.trim().replace(/^- /, ''))
    .filter((line) => line && !/^(\d+ × )?(waiting \d+ms|retrying .+ action)$/.test(line));
  return waits.length ? `${first} (${waits.slice(-2).join(': ')})` : first;
}

/** Evaluates `read(arg)` in the page every `everyMs` until `until(value)` or `timeoutMs`: `{ value, ok }`. */
export async function poll(page, read, until, timeoutMs, everyMs = 300, arg = undefined) {
  const deadline = Date.now() + timeoutMs;
  let value = await page.evaluate(read, arg);
  while (!until(value) && Date.now() < deadline) {
    await page.waitForTimeout(everyMs);
    value = await page.evaluate(read, arg);
  }
  return { value, ok: until(value) };
}

/** A screenshot of the page at `path` (after half a second for the last paint); returns `path`. */
export async function shot(page, path) {
  mkdirSync(dirname(path), { recursive: true });
  await page.waitForTimeout(500);
  await page.screenshot({ path });
  return path;
}
