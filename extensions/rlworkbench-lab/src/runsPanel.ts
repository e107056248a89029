// The runs panel: every rlworkbench run this Jupyter server's machine knows (any kernel, any target), experiments
// as expandable groups of their trial runs, and the configured cluster's jobs, refreshed every ~2 s. Runs ticked
// on their cards (2 or more) open side by side in the compare view; a Ray run's card opens its dataflow drawing.
import { Widget } from '@lumino/widgets';
import { requestAPI, IClusterRow, IExperimentRecord, IRunRecord, IRunsReply } from './api';
import { dataflowRuns } from './dataflowPanel';
import { button, element } from './dom';
import { experimentGroup } from './experimentGroup';
import { ICardContext, IRunActions, runCard } from './runCard';

export const REFRESH_MS = 2000;

export class RunsPanel extends Widget {
  private list: HTMLElement;
  private cluster: HTMLElement;
  private status: HTMLElement;
  private chosen: HTMLElement;
  private compare: HTMLButtonElement;
  private timer: number | undefined;
  private context: ICardContext;
  private expanded = new Set<string>(); // experiment ids shown open

  constructor(actions: IRunActions) {
    super();
    this.id = 'rlworkbench-runs';
    this.addClass('rlwb-runs-panel');
    this.title.caption = 'rlworkbench runs';
    this.context = {
      actions, selected: new Set(), stopping: new Set(), resuming: new Set(), dataflow: new Set(),
      onSelect: () => this.showSelection()
    };
    this.status = element('div', 'rlwb-status');
    this.chosen = element('span', 'rlwb-selection');
    this.compare = button('Compare', 'rlwb-compare-button', () => actions.openCompare([...this.context.selected]));
    const clear = button('Clear', 'rlwb-clear', () => {
      this.context.selected.clear();
      this.list.querySelectorAll<HTMLInputElement>('input.rlwb-select').forEach((box) => { box.checked = false; });
      this.showSelection();
    });
    const bar = element('div', 'rlwb-compare-bar');
    bar.append(this.chosen, this.compare, clear);
    this.list = element('div', 'rlwb-run-list');
    this.cluster = element('div', 'rlwb-cluster');
    this.node.append(element('div', 'rlwb-header', 'rlworkbench runs'), this.status, bar, this.list, this.cluster);
    this.showSelection();
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
      [reply, this.context.dataflow] = await Promise.all([requestAPI<IRunsReply>('runs'), dataflowRuns()]);
    } catch (error) {
      this.status.textContent = `cannot read the runs: ${error}`;
      return;
    }
    const experiments = reply.experiments ?? [];
    this.status.textContent = `${reply.runs.length} run(s), ${experiments.length} experiment(s) · ` +
      `updated ${new Date().toLocaleTimeString()}`;
    const ids = new Set(reply.runs.map((run) => run.id));
    [...this.context.selected].filter((id) => !ids.has(id)).forEach((id) => this.context.selected.delete(id));
    this.list.replaceChildren(...this.entries(reply.runs, experiments));
    if (reply.runs.length === 0 && experiments.length === 0) {
      this.list.textContent = 'No runs yet: promote() one from a notebook.';
    }
    this.showSelection();
    this.cluster.replaceChildren(...(reply.cluster ? this.clusterTable(reply.cluster) : []));
  }

  /** Experiments (with their trial runs) and plain runs, newest first. */
  private entries(runs: IRunRecord[], experiments: IExperimentRecord[]): HTMLElement[] {
    const names = new Set(experiments.map((experiment) => experiment.name));
    const items: [number, () => HTMLElement][] = experiments.map((experiment) => [experiment.started,
      () => experimentGroup(experiment, runs.filter((run) => run.experiment === experiment.name), this.expanded,
        this.context)]);
    for (const run of runs.filter((run) => !run.experiment || !names.has(run.experiment))) {
      items.push([run.started, () => runCard(run, this.context)]);
    }
    return items.sort((a, b) => b[0] - a[0]).map(([, make]) => make());
  }

  private showSelection(): void {
    const count = this.context.selected.size;
    this.chosen.textContent = count ? `${count} run(s) selected` : 'Tick runs to compare them';
    this.compare.disabled = count < 2;
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
