// Opens JupyterLab served from a venv where rlworkbench was installed from its wheel, and checks the runs panel
// there: its sidebar tab exists (the prebuilt frontend loaded from share/jupyter/labextensions) and, opened, it
// reads the runs from the server extension (rlworkbench.lab, switched on by etc/jupyter/...). Config: url,
// chromium, chromium_args, viewport, timeout_ms, screenshot. Prints one JSON result line.
import { readFileSync } from 'node:fs';
import { drivePage, poll, shot } from './browser_session.mjs';

const cfg = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const result = { problems: [], console_errors: [] };

await drivePage(cfg, result, Date.now(), async (page) => {
  await page.goto(cfg.url, { timeout: cfg.timeout_ms });
  const tab = page.locator('.jp-SideBar.jp-mod-left .lm-TabBar-tab[data-id="rlworkbench-runs"]');
  await tab.waitFor({ timeout: cfg.timeout_ms });
  await tab.click();
  await page.waitForSelector('#rlworkbench-runs:not(.lm-mod-hidden)', { timeout: cfg.timeout_ms });
  const status = await poll(page, () => document.querySelector('#rlworkbench-runs .rlwb-status')?.textContent ?? '',
    (text) => /run\(s\)|cannot read/.test(text), cfg.timeout_ms);
  result.status = status.value;
  result.list = await page.evaluate(() => document.querySelector('#rlworkbench-runs .rlwb-run-list')?.textContent);
}, async (page) => { result.screenshot = await shot(page, cfg.screenshot); });
