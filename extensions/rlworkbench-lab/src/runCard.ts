// One run's card in the runs panel: a checkbox (select it for Compare), state, what and where, progress, steps/s,
// recent returns, and Stop / TensorBoard / Graph / Folder. An experiment's trial run is titled by its seed.
import { IRunRecord } from './api';
import { button, clock, element } from './dom';
import { sparkline } from './sparkline';
import { stopButton } from './stopButton';

export const LIVE = new Set(['starting', 'running']);

export interface IRunActions {
  openTensorBoard(run: IRunRecord): Promise<void>;
  openGraph(run: IRunRecord): Promise<void>;
  openFolder(name: string, path: string, inRoot: string | null): Promise<void>;
  openCompare(runIds: string[]): Promise<void>;
}

export interface ICardContext {
  actions: IRunActions;
  selected: Set<string>; // run ids ticked for Compare
  stopping: Set<string>; // ids whose Stop was pressed
  onSelect(): void; // after a tick changed `selected`
}

export function runCard(run: IRunRecord, context: ICardContext): HTMLElement {
  const card = element('div', 'rlwb-run');
  card.dataset.runId = run.id;
  card.dataset.state = run.state;
  const trial = run.experiment ? run.labels : undefined;
  const what = `${run.name} · ${run.env} · ${run.target}`;
  const title = element('div', 'rlwb-run-title', trial ? `seed ${trial.seed} · ${what}` : what);
  if (run.devices && run.devices.length) {
    title.textContent += ` (${run.devices.length} towers)`;
  }
  title.prepend(element('span', `rlwb-state rlwb-state-${run.state}`, run.state));
  title.prepend(checkbox(run, context));
  card.appendChild(title);
  if (run.error) {
    card.appendChild(element('div', 'rlwb-error', run.error));
  }
  const progress = document.createElement('progress');
  progress.max = Math.max(1, run.total_timesteps);
  progress.value = Math.min(run.timesteps, progress.max);
  const counts = element('span', 'rlwb-counts',
    `${run.timesteps.toLocaleString()} / ${run.total_timesteps.toLocaleString()}`);
  const row = element('div', 'rlwb-progress');
  row.append(progress, counts);
  card.appendChild(row);
  const numbers = element('div', 'rlwb-numbers');
  const speed = run.steps_per_second === null ? 'n/a' : `${Math.round(run.steps_per_second).toLocaleString()}`;
  const ret = run.recent_return === null ? 'n/a' : run.recent_return.toFixed(1);
  numbers.append(element('span', 'rlwb-speed', `${speed} steps/s`),
    element('span', 'rlwb-return', `return ${ret}`), sparkline(run.returns));
  card.appendChild(numbers);
  card.appendChild(element('div', 'rlwb-times',
    `started ${clock(run.started)} · updated ${clock(run.updated)}` +
    (run.submission_id ? ` · job ${run.submission_id}` : '')));
  const buttons = element('div', 'rlwb-actions');
  if (LIVE.has(run.state)) {
    buttons.appendChild(stopButton(run.id, context.stopping));
  }
  const { actions } = context;
  buttons.append(
    button('TensorBoard', 'rlwb-tensorboard', () => actions.openTensorBoard(run)),
    button('Graph', 'rlwb-graph-button', () => actions.openGraph(run)),
    button('Folder', 'rlwb-folder', () => actions.openFolder(run.name, run.logdir, run.logdir_in_root))
  );
  card.appendChild(buttons);
  return card;
}

function checkbox(run: IRunRecord, context: ICardContext): HTMLInputElement {
  const box = document.createElement('input');
  box.type = 'checkbox';
  box.className = 'rlwb-select';
  box.title = 'Select for Compare';
  box.checked = context.selected.has(run.id);
  box.addEventListener('change', () => {
    if (box.checked) {
      context.selected.add(run.id);
    } else {
      context.selected.delete(run.id);
    }
    context.onSelect();
  });
  return box;
}
