// One run's card in the runs panel: a checkbox (select it for Compare), state, which config on which env and
// target, its short id and the notebook it came from, a start phase while it has not stepped yet, progress,
// steps/s, recent returns (each explained in a tooltip), and Stop (live runs) or Resume (stopped, failed or
// orphaned runs of this machine) / TensorBoard / Graph / Dataflow (Ray runs whose
// folder holds a dataflow.json) / Folder (disabled, with a note, when the run's folder is outside the server's root). An experiment's trial run is titled by its seed.
import { IRunRecord } from './api';
import { button, clock, element } from './dom';
import { sparkline } from './sparkline';
import { RESUMABLE, resumeButton } from './resumeButton';
import { stopButton } from './stopButton';

export const LIVE = new Set(['starting', 'running']);

export interface IRunActions {
  openTensorBoard(run: IRunRecord): Promise<void>;
  openGraph(run: IRunRecord): Promise<void>;
  openDataflow(run: IRunRecord): Promise<void>;
  openFolder(name: string, path: string, inRoot: string | null): Promise<void>;
  openCompare(runIds: string[]): Promise<void>;
}

export interface ICardContext {
  actions: IRunActions;
  selected: Set<string>; // run ids ticked for Compare
  stopping: Set<string>; // ids whose Stop was pressed
  resuming: Set<string>; // ids whose Resume was pressed, until their record is live again
  dataflow: Set<string>; // ids of the runs whose folder holds a dataflow.json
  onSelect(): void; // after a tick changed `selected`
}

export function runCard(run: IRunRecord, context: ICardContext): HTMLElement {
  const card = element('div', 'rlwb-run');
  card.dataset.runId = run.id;
  card.dataset.state = run.state;
  const trial = run.experiment ? run.labels : undefined;
  const what = `${configLabel(run)} · ${run.env} · ${run.target}`;
  const title = element('div', 'rlwb-run-title', trial ? `seed ${trial.seed} · ${what}` : what);
  if (run.devices && run.devices.length) {
    title.textContent += ` (${run.devices.length} towers)`;
  }
  title.title = `config ${configLabel(run)} (run directory ${run.name}-…)`;
  title.prepend(element('span', `rlwb-state rlwb-state-${run.state}`, run.state));
  title.prepend(checkbox(run, context));
  card.appendChild(title);
  card.appendChild(identity(run));
  if (run.phase && LIVE.has(run.state)) {
    card.appendChild(element('div', 'rlwb-phase', run.phase));
  }
  if (run.error) {
    card.appendChild(element('div', 'rlwb-error', run.error));
  }
  const progress = document.createElement('progress');
  progress.max = Math.max(1, run.total_timesteps);
  progress.value = Math.min(run.timesteps, progress.max);
  const counts = explained(element('span', 'rlwb-counts',
    `${run.timesteps.toLocaleString()} / ${run.total_timesteps.toLocaleString()}`), 'env steps taken / to take');
  const row = element('div', 'rlwb-progress');
  row.append(progress, counts);
  card.appendChild(row);
  const numbers = element('div', 'rlwb-numbers');
  const speed = run.steps_per_second === null ? 'n/a' : `${Math.round(run.steps_per_second).toLocaleString()}`;
  const ret = run.recent_return === null ? 'n/a' : run.recent_return.toFixed(1);
  const line = sparkline(run.returns);
  line.appendChild(svgTitle('returns of the last episodes'));
  numbers.append(explained(element('span', 'rlwb-speed', `${speed} steps/s`), 'env steps per second so far'),
    explained(element('span', 'rlwb-return', `return ${ret}`), 'mean return of the recent episodes'), line);
  card.appendChild(numbers);
  card.appendChild(element('div', 'rlwb-times',
    `started ${clock(run.started)} · updated ${clock(run.updated)}` +
    (run.submission_id ? ` · job ${run.submission_id}` : '')));
  const buttons = element('div', 'rlwb-actions');
  if (LIVE.has(run.state)) {
    context.resuming.delete(run.id);
    buttons.appendChild(stopButton(run.id, context.stopping));
  } else {
    context.stopping.delete(run.id); // it stopped: a resumed part gets a fresh Stop
    if (RESUMABLE.has(run.state) && !run.experiment) {
      buttons.appendChild(resumeButton(run.id, context.resuming));
    }
  }
  const { actions } = context;
  const folder = button('Folder', 'rlwb-folder', () => actions.openFolder(run.name, run.logdir, run.logdir_in_root));
  folder.title = run.logdir;
  buttons.append(
    button('TensorBoard', 'rlwb-tensorboard', () => actions.openTensorBoard(run)),
    button('Graph', 'rlwb-graph-button', () => actions.openGraph(run)),
    folder
  );
  if (context.dataflow.has(run.id)) {
    const dataflow = button('Dataflow', 'rlwb-dataflow-button', () => actions.openDataflow(run));
    dataflow.title = 'The plan\'s actors and what flows between them, live (items/s, bytes/s, the bottleneck)';
    buttons.insertBefore(dataflow, folder);
  }
  card.appendChild(buttons);
  if (run.logdir_in_root === null) {
    folder.disabled = true;
    card.appendChild(element('div', 'rlwb-outside',
      `Its folder ${run.logdir} is outside this server's root: the file browser cannot show it.`));
  }
  return card;
}

/** The config as a person knows it (older records have only the run directory's stem). */
export function configLabel(run: IRunRecord): string {
  return run.config_label || run.name;
}

/** `run 3fa2c1 · train.ipynb`: which run, and the notebook or script that started it (its path as the tooltip). */
function identity(run: IRunRecord): HTMLElement {
  const line = element('div', 'rlwb-identity', `run ${run.id.slice(0, 6)}`);
  line.title = `run id ${run.id}`;
  const source = run.source_in_root ?? run.source;
  if (source) {
    const from = element('span', 'rlwb-source', ` · ${source.split('/').pop()}`);
    from.title = `started from ${source}`;
    line.appendChild(from);
  }
  return line;
}

function explained<T extends HTMLElement>(node: T, help: string): T {
  node.title = help;
  return node;
}

function svgTitle(text: string): SVGTitleElement {
  const title = document.createElementNS('http://www.w3.org/2000/svg', 'title');
  title.textContent = text;
  return title;
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
