// What every browser driver here shares: one page in Debian's headless Chromium (playwright-core, no bundled
// browser) with its console errors collected into `result`, the driver's `run(page)` whose exception becomes
// `result.fatal` (exit code 2), then `after(page, exitCode)` (screenshots), and the result as one JSON line.
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
      result.problems.push(`driver stopped: ${err.message.split('\n')[0]}`);
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
