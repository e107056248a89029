// The runs panel: every rlworkbench run this Jupyter server's machine knows (any kernel, any target) and the
// configured cluster's jobs, refreshed every ~2 s, with Stop / TensorBoard / Graph / Folder actions.
import { Widget } from '@lumino/widgets';
import { requestAPI, IClusterRow, IRunRecord, IRunsReply } from './api';
import { sparkline } from './sparkline';

export const REFRESH_MS = 2000;
const LIVE = new Set(['starting', 'running']);

export interface IRunActions {
  openTensorBoard(run: IRunRecord): Promise<void>;
  openGraph(run: IRunRecord): Promise<void>;
  openFolder(run: IRunRecord): Promise<void>;
}

export class RunsPanel extends Widget {
  private list: HTMLElement;
  private cluster: HTMLElement;
  private status: HTMLElement;
  private timer: number | undefined;
  private stopping = new Set<string>();

  constructor(private actions: IRunActions) {
    super();
    this.id = 'rlworkbench-runs';
    this.addClass('rlwb-runs-panel');
    this.title.caption = 'rlworkbench runs';
    const header = document.createElement('div');
    header.className = 'rlwb-header';
    header.textContent = 'rlworkbench runs';
    this.status = document.createElement('div');
    this.status.className = 'rlwb-status';
    this.list = document.createElement('div');
    this.list.className = 'rlwb-run-list';
    this.cluster = document.createElement('div');
    this.cluster.className = 'rlwb-cluster';
    this.node.append(header, this.status, this.list, this.cluster);
  }

  protected onAfterAttach(): void {
    void this.refresh();
    this.timer = window.setInterval(() => {
      if (this.isVisible) {
        void this.refresh();
      }
    }, REFRESH_MS);
  }

  protected onBeforeDetach(): void {
    window.clearInterval(this.timer);
  }

  protected onAfterShow(): void {
    void this.refresh();
  }

  async refresh(): Promise<void> {
    let reply: IRunsReply;
    try {
      reply = await requestAPI<IRunsReply>('runs');
    } catch (error) {
      this.status.textContent = `cannot read the runs: ${error}`;
      return;
    }
    this.status.textContent = `${reply.runs.length} run(s) · updated ${new Date().toLocaleTimeString()}`;
    this.list.replaceChildren(...reply.runs.map((run) => this.card(run)));
    if (reply.runs.length === 0) {
      this.list.textContent = 'No runs yet: promote() one from a notebook.';
    }
    this.cluster.replaceChildren(...(reply.cluster ? this.clusterTable(reply.cluster) : []));
  }

  private card(run: IRunRecord): HTMLElement {
    const card = element('div', 'rlwb-run');
    card.dataset.runId = run.id;
    card.dataset.state = run.state;
    const title = element('div', 'rlwb-run-title', `${run.name} · ${run.env} · ${run.target}`);
    if (run.devices && run.devices.length) {
      title.textContent += ` (${run.devices.length} towers)`;
    }
    const state = element('span', `rlwb-state rlwb-state-${run.state}`, run.state);
    title.prepend(state);
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
      const stop = button('Stop', 'rlwb-stop', async () => {
        this.stopping.add(run.id);
        stop.disabled = true;
        stop.textContent = 'Stopping…';
        try {
          await requestAPI(`runs/${run.id}/stop`, { method: 'POST' });
        } catch (error) {
          stop.textContent = `Stop failed: ${error}`;
        }
      });
      if (this.stopping.has(run.id)) {
        stop.disabled = true;
        stop.textContent = 'Stopping…';
      }
      buttons.appendChild(stop);
    }
    buttons.append(
      button('TensorBoard', 'rlwb-tensorboard', () => this.actions.openTensorBoard(run)),
      button('Graph', 'rlwb-graph-button', () => this.actions.openGraph(run)),
      button('Folder', 'rlwb-folder', () => this.actions.openFolder(run))
    );
    card.appendChild(buttons);
    return card;
  }

  private clusterTable(cluster: { address: string; runs: IClusterRow[]; error: string | null }): HTMLElement[] {
    const header = element('div', 'rlwb-header', `cluster ${cluster.address}`);
    if (cluster.error) {
      return [header, element('div', 'rlwb-error', cluster.error)];
    }
    const table = document.createElement('table');
    table.className = 'rlwb-cluster-table';
    const head = table.insertRow();
    for (const name of ['job', 'config', 'state', 'timesteps', 'return']) {
      head.appendChild(element('th', '', name));
    }
    for (const job of cluster.runs) {
      const row = table.insertRow();
      row.dataset.submissionId = job.submission_id;
      const ret = job.return === null ? 'n/a' : Number(job.return).toFixed(1);
      for (const text of [job.submission_id, job.config, job.state,
        `${job.timesteps.toLocaleString()} / ${job.total_timesteps.toLocaleString()}`, ret]) {
        row.insertCell().textContent = text;
      }
    }
    return [header, table];
  }
}

function element(tag: string, className: string, text?: string): HTMLElement {
  const node = document.createElement(tag);
  if (className) {
    node.className = className;
  }
  if (text !== undefined) {
    node.textContent = text;
  }
  return node;
}

function button(label: string, className: string, onClick: () => Promise<void>): HTMLButtonElement {
  const node = document.createElement('button');
  node.className = `jp-Button rlwb-button ${className}`;
  node.textContent = label;
  node.addEventListener('click', () => void onClick());
  return node;
}

function clock(seconds: number): string {
  return new Date(seconds * 1000).toLocaleTimeString();
}
