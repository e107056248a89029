// The Dataflow tab (main area): a Ray run's plan drawn with its live rates — samplers, shards, queue, learner, the
// bottleneck edge thick and orange, restarts in red — redrawn every ~2 s while the run goes, once more after it
// ends. Data: GET rlworkbench/dataflow?run=<id> (rlworkbench/lab/dataflow_view.py); GET rlworkbench/dataflows names
// the runs that have one (the runs panel's Dataflow buttons).
import { Widget } from '@lumino/widgets';
import { requestAPI } from './api';
import { button, element } from './dom';

export const DATAFLOW_REFRESH_MS = 2000;
const LIVE_STATES = new Set(['starting', 'running']);

export interface IDataflowEdge {
  source: string;
  target: string;
  carries: string;
  items: number;
  bytes: number;
  items_per_s: number;
  bytes_per_s: number;
  bottleneck: boolean;
}

export interface IDataflowReply {
  run: string;
  state: string | null;
  plan: string;
  wall_time: number;
  svg: string;
  nodes: { node: string; kind: string; restarts: number; error: string }[];
  edges: IDataflowEdge[];
  bottleneck: IDataflowEdge | null;
}

/** The ids of the runs whose directory holds a dataflow.json (none when the server cannot say). */
export async function dataflowRuns(): Promise<Set<string>> {
  try {
    return new Set((await requestAPI<{ runs: string[] }>('dataflows')).runs);
  } catch {
    return new Set();
  }
}

export class DataflowPanel extends Widget {
  private message: HTMLElement;
  private canvas: HTMLElement;
  private timer: number | undefined;
  private live = true; // keeps refreshing while the run's record says it goes
  private svgText = '';

  constructor(readonly runId: string) {
    super();
    this.addClass('rlwb-dataflow');
    this.node.dataset.runId = runId;
    this.message = element('span', 'rlwb-graph-message');
    const bar = element('div', 'rlwb-graph-toolbar');
    bar.append(button('Reload', 'rlwb-reload', () => this.load()), this.message);
    this.canvas = element('div', 'rlwb-dataflow-canvas');
    this.node.append(bar, this.canvas);
    void this.load();
  }

  protected onAfterAttach(): void {
    this.timer = window.setInterval(() => {
      if (this.live && this.isVisible) {
        void this.load();
      }
    }, DATAFLOW_REFRESH_MS);
  }

  protected onBeforeDetach(): void {
    window.clearInterval(this.timer);
  }

  async load(): Promise<void> {
    let reply: IDataflowReply;
    try {
      reply = await requestAPI<IDataflowReply>(`dataflow?run=${encodeURIComponent(this.runId)}`);
    } catch (error) {
      this.message.textContent = `cannot draw the dataflow: ${error}`;
      this.message.classList.add('rlwb-error');
      return;
    }
    this.message.classList.remove('rlwb-error');
    this.live = reply.state === null || LIVE_STATES.has(reply.state);
    const limit = reply.bottleneck;
    this.message.textContent = `${reply.plan} · ${reply.wall_time.toFixed(1)} s into the run · ` +
      (limit ? `bottleneck: ${limit.carries} ${limit.source} → ${limit.target}` : 'no bottleneck named yet') +
      ` · ${reply.state ?? ''} · read ${new Date().toLocaleTimeString()}`;
    if (reply.svg !== this.svgText) { // redrawn only when the figures changed: the scroll position stays
      const scroll = { left: this.canvas.scrollLeft, top: this.canvas.scrollTop };
      this.canvas.innerHTML = reply.svg;
      this.canvas.scrollTo(scroll);
      this.svgText = reply.svg;
      this.node.dataset.wallTime = String(reply.wall_time);
    }
  }
}
