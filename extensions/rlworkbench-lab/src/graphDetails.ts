// What the graph viewer's details pane shows of a clicked component: what GraphExplorer shows of it — class,
// device, variables, API methods with their spaces.
import { IComponentDetails } from './api';

export function describe(details: IComponentDetails): HTMLElement[] {
  const title = document.createElement('h3');
  title.textContent = `${details.path} (${details.class})`;
  const facts = document.createElement('div');
  facts.className = 'rlwb-facts';
  facts.textContent = `device ${details.resolved_device || details.device || '—'} · ` +
    `${details.built ? `built on ${details.backend}` : 'not built'} · ${details.variables} variables, ` +
    `${details.values.toLocaleString()} values`;
  const table = document.createElement('table');
  table.className = 'rlwb-api-table';
  const head = table.insertRow();
  for (const name of ['API method', 'inputs', 'outputs']) {
    const cell = document.createElement('th');
    cell.textContent = name;
    head.appendChild(cell);
  }
  for (const row of details.api) {
    const line = table.insertRow();
    for (const text of [row.api_method, row.inputs, row.outputs]) {
      line.insertCell().textContent = text;
    }
  }
  return [title, facts, table];
}
