// The component-graph viewer: the library's own SVG (drawn by the server from a config file or a run's config),
// opened folded to depth 1 at a scale where node labels read (graphZoom.ts), depth and API-method filters, Reload,
// and a click on a component's cluster showing what GraphExplorer shows of it. A reload that fails (the file saved
// as an invalid config) keeps the last good graph, greyed, under "last good graph — <the reason>".
import type { Message } from '@lumino/messaging';
import { Widget } from '@lumino/widgets';
import { APIError, requestAPI, IGraphReply } from './api';
import { describe } from './graphDetails';
import { ZoomPane } from './graphZoom';

export interface IGraphSource {
  path?: string; // a config file, relative to the server's root
  run?: string; // a run id from the runs panel
}

/** The depth the viewer opens at: the drawn component's children, their own sub-trees folded into boxes. */
export const OPENING_DEPTH = '1';
const HINT = 'Click a component to see its API methods, spaces, device and variables.';
const RELOAD_DELAY_MS = 100; // the signals of one save make one request

export class GraphView extends Widget {
  private depth: HTMLSelectElement;
  private api: HTMLSelectElement;
  private env: HTMLInputElement;
  private status: HTMLElement;
  private message: HTMLElement;
  private body: HTMLElement;
  private zoom = new ZoomPane();
  private details: HTMLElement;
  private reply: IGraphReply | null = null;
  private selected: string | null = null;
  private loads = 0; // the number of the latest load: an older one's answer is dropped
  private draws = 0;
  private pending: number | undefined;

  constructor(private source: IGraphSource) {
    super();
    this.addClass('rlwb-graph');
    const bar = document.createElement('div');
    bar.className = 'rlwb-graph-toolbar';
    this.depth = select('rlwb-depth', [['', 'all depths'], ['0', 'depth 0'], ['1', 'depth 1'], ['2', 'depth 2'],
      ['3', 'depth 3']]);
    this.depth.value = OPENING_DEPTH;
    this.depth.title = 'components below this depth are folded into boxes';
    this.api = select('rlwb-api', [['', 'all API methods']]);
    this.env = document.createElement('input');
    this.env.className = 'rlwb-env';
    this.env.placeholder = 'env (CartPole-v1)';
    this.env.title = 'Gymnasium env whose spaces the config is built for';
    for (const control of [this.depth, this.api, this.env]) {
      control.addEventListener('change', () => void this.load(false));
    }
    const reload = document.createElement('button');
    reload.className = 'jp-Button rlwb-button rlwb-reload';
    reload.textContent = 'Reload';
    reload.title = source.path ? 'draw the file again as it is on disk' : 'draw the run\'s graph again';
    reload.addEventListener('click', () => void this.reload());
    this.status = document.createElement('span');
    this.status.className = 'rlwb-graph-status';
    bar.append(this.depth, this.api, ...(source.path ? [this.env] : []), reload, this.zoom.controls, this.status);
    this.message = document.createElement('div');
    this.message.className = 'rlwb-graph-message';
    this.details = document.createElement('div');
    this.details.className = 'rlwb-graph-details';
    this.details.textContent = HINT;
    this.body = document.createElement('div');
    this.body.className = 'rlwb-graph-body';
    this.body.append(this.zoom.viewport, this.details);
    this.node.append(bar, this.message, this.body);
    this.zoom.drawing.addEventListener('click', (event) => this.select(event));
    void this.load(false);
  }

  /** The config file drawn (a rename moves it). */
  set path(path: string) {
    this.source = { ...this.source, path };
  }

  /** Draws the graph again from the file (or run) as it is now, keeping the user's zoom and scroll. */
  reload(): Promise<void> {
    return this.load(true);
  }

  /** A reload a moment from now; calls before it make no further requests. */
  scheduleReload(): void {
    window.clearTimeout(this.pending);
    this.pending = window.setTimeout(() => void this.reload(), RELOAD_DELAY_MS);
  }

  protected onResize(msg: Widget.ResizeMessage): void {
    super.onResize(msg);
    this.zoom.resized();
  }

  protected onAfterShow(msg: Message): void {
    super.onAfterShow(msg);
    this.zoom.resized();
  }

  private query(): string {
    const query = new URLSearchParams();
    for (const [key, value] of [['path', this.source.path], ['run', this.source.run], ['depth', this.depth.value],
      ['api', this.api.value], ['env', this.env.value]]) {
      if (value) {
        query.set(key as string, value);
      }
    }
    return query.toString();
  }

  private async load(keepView: boolean): Promise<void> {
    const number = ++this.loads;
    const started = performance.now();
    this.status.textContent = 'building the graph…';
    this.node.dataset.loading = 'yes';
    let reply: IGraphReply | null = null;
    let problem: unknown = null;
    try {
      reply = await requestAPI<IGraphReply>(`graph?${this.query()}`);
    } catch (error) {
      problem = error;
    }
    if (number !== this.loads) {
      return; // a later load answers
    }
    delete this.node.dataset.loading;
    if (reply === null) {
      this.failed(problem);
      return;
    }
    this.draw(reply, keepView && this.reply !== null);
    this.status.textContent = `drawn ${new Date().toLocaleTimeString()} (${
      ((performance.now() - started) / 1000).toFixed(1)} s)`;
  }

  /** No graph came: the last good one stays, greyed, under the reason. */
  private failed(error: unknown): void {
    const reason = error instanceof APIError ? error.reason : error instanceof Error ? error.message : String(error);
    const stale = this.reply !== null;
    this.body.classList.toggle('rlwb-stale', stale);
    this.message.className = 'rlwb-graph-message rlwb-graph-problem';
    this.message.textContent = stale ? `last good graph — ${reason}` : `cannot draw this graph — ${reason}`;
    this.status.textContent = '';
    this.node.dataset.graphState = stale ? 'stale' : 'failed';
  }

  private draw(reply: IGraphReply, keepView: boolean): void {
    this.reply = reply;
    this.body.classList.remove('rlwb-stale');
    this.message.className = `rlwb-graph-message${reply.error ? ' rlwb-graph-problem' : ''}`;
    this.message.textContent = reply.error ? `${reply.title} — ${reply.error}` : reply.title;
    refill(this.api, [['', 'all API methods'], ...reply.api_methods.map((name): [string, string] => [name, name])]);
    refill(this.depth, [['', `all depths (${reply.max_depth})`],
      ...Array.from({ length: reply.max_depth }, (_, depth): [string, string] => [`${depth}`, `depth ${depth}`])]);
    this.zoom.show(reply.svg, keepView);
    const cluster = this.selected && this.zoom.drawing.querySelector(`g.cluster[id="${CSS.escape(
      `component-${this.selected}`)}"]`);
    if (cluster) {
      this.showDetails(cluster);
    } else {
      this.selected = null;
      this.details.replaceChildren(HINT);
    }
    this.node.dataset.graphState = reply.error ? 'stuck' : 'drawn';
    this.node.dataset.draws = `${++this.draws}`;
  }

  private select(event: MouseEvent): void {
    const cluster = (event.target as Element).closest('g.cluster');
    if (cluster && cluster.id.startsWith('component-')) {
      this.showDetails(cluster);
    }
  }

  private showDetails(cluster: Element): void {
    const path = cluster.id.slice('component-'.length);
    const details = this.reply?.components[path];
    if (!details) {
      return;
    }
    this.zoom.drawing.querySelectorAll('g.cluster.rlwb-selected').forEach((node) =>
      node.classList.remove('rlwb-selected'));
    cluster.classList.add('rlwb-selected');
    this.selected = path;
    this.details.replaceChildren(...describe(details));
  }
}

function select(className: string, choices: [string, string][]): HTMLSelectElement {
  const node = document.createElement('select');
  node.className = className;
  refill(node, choices);
  return node;
}

/** New choices for a menu, keeping its value where it is still one of them. */
function refill(node: HTMLSelectElement, choices: [string, string][]): void {
  const chosen = node.value;
  node.replaceChildren(...choices.map(([value, label]) => {
    const item = document.createElement('option');
    item.value = value;
    item.textContent = label;
    return item;
  }));
  node.value = choices.some(([value]) => value === chosen) ? chosen : choices[0][0];
}
