// The component-graph viewer: the library's own SVG (drawn by the server from a config file or a run's config),
// pan (drag) and zoom (wheel), depth and API-method filters, and a click on a component's cluster showing what
// GraphExplorer shows of it: class, device, variables, API methods with their spaces.
import { Widget } from '@lumino/widgets';
import { requestAPI, IComponentDetails, IGraphReply } from './api';

export interface IGraphSource {
  path?: string; // a config file, relative to the server's root
  run?: string; // a run id from the runs panel
}

export class GraphView extends Widget {
  private depth: HTMLSelectElement;
  private api: HTMLSelectElement;
  private env: HTMLInputElement;
  private message: HTMLElement;
  private viewport: HTMLElement;
  private canvas: HTMLElement;
  private details: HTMLElement;
  private reply: IGraphReply | null = null;
  private scale = 1;
  private offset = { x: 0, y: 0 };

  constructor(private source: IGraphSource) {
    super();
    this.addClass('rlwb-graph');
    const bar = document.createElement('div');
    bar.className = 'rlwb-graph-toolbar';
    this.depth = select('rlwb-depth', [['', 'all depths'], ['0', 'depth 0'], ['1', 'depth 1'], ['2', 'depth 2'],
      ['3', 'depth 3']]);
    this.api = select('rlwb-api', [['', 'all API methods']]);
    this.env = document.createElement('input');
    this.env.className = 'rlwb-env';
    this.env.placeholder = 'env (CartPole-v1)';
    this.env.title = 'Gymnasium env whose spaces the config is built for';
    const fit = document.createElement('button');
    fit.className = 'jp-Button rlwb-button';
    fit.textContent = 'Fit';
    fit.addEventListener('click', () => this.fitToView());
    for (const control of [this.depth, this.api]) {
      control.addEventListener('change', () => void this.load());
    }
    this.env.addEventListener('change', () => void this.load());
    bar.append(this.depth, this.api, ...(source.path ? [this.env] : []), fit);
    this.message = document.createElement('div');
    this.message.className = 'rlwb-graph-message';
    this.viewport = document.createElement('div');
    this.viewport.className = 'rlwb-graph-viewport';
    this.canvas = document.createElement('div');
    this.canvas.className = 'rlwb-graph-canvas';
    this.viewport.appendChild(this.canvas);
    this.details = document.createElement('div');
    this.details.className = 'rlwb-graph-details';
    this.details.textContent = 'Click a component to see its API methods, spaces, device and variables.';
    const body = document.createElement('div');
    body.className = 'rlwb-graph-body';
    body.append(this.viewport, this.details);
    this.node.append(bar, this.message, body);
    this.panAndZoom();
    this.canvas.addEventListener('click', (event) => this.select(event));
    void this.load();
  }

  async load(): Promise<void> {
    const query = new URLSearchParams();
    if (this.source.path) {
      query.set('path', this.source.path);
    }
    if (this.source.run) {
      query.set('run', this.source.run);
    }
    for (const [key, control] of [['depth', this.depth], ['api', this.api], ['env', this.env]] as const) {
      if (control.value) {
        query.set(key, control.value);
      }
    }
    this.message.textContent = 'building the graph…';
    try {
      this.reply = await requestAPI<IGraphReply>(`graph?${query.toString()}`);
    } catch (error) {
      this.message.textContent = `cannot draw this graph: ${error}`;
      this.message.classList.add('rlwb-error');
      return;
    }
    this.message.classList.toggle('rlwb-error', Boolean(this.reply.error));
    this.message.textContent = this.reply.error ? `${this.reply.title} — ${this.reply.error}` : this.reply.title;
    const chosen = this.api.value;
    this.api.replaceChildren(option('', 'all API methods'), ...this.reply.api_methods.map((name) => option(name, name)));
    this.api.value = chosen;
    this.canvas.innerHTML = this.reply.svg;
    this.fitToView();
  }

  private fitToView(): void {
    const svg = this.canvas.querySelector('svg');
    if (!svg) {
      return;
    }
    const width = svg.getBoundingClientRect().width / this.scale || 1;
    const available = this.viewport.clientWidth || width;
    this.scale = Math.min(1, available / width);
    this.offset = { x: 0, y: 0 };
    this.apply();
  }

  private apply(): void {
    this.canvas.style.transform = `translate(${this.offset.x}px, ${this.offset.y}px) scale(${this.scale})`;
  }

  private panAndZoom(): void {
    let dragging: { x: number; y: number } | null = null;
    this.viewport.addEventListener('wheel', (event) => {
      event.preventDefault();
      const box = this.viewport.getBoundingClientRect();
      const factor = Math.exp(-event.deltaY * 0.0015);
      const x = event.clientX - box.left;
      const y = event.clientY - box.top;
      this.offset = { x: x - (x - this.offset.x) * factor, y: y - (y - this.offset.y) * factor };
      this.scale *= factor;
      this.apply();
    }, { passive: false });
    this.viewport.addEventListener('mousedown', (event) => {
      dragging = { x: event.clientX - this.offset.x, y: event.clientY - this.offset.y };
    });
    window.addEventListener('mousemove', (event) => {
      if (dragging) {
        this.offset = { x: event.clientX - dragging.x, y: event.clientY - dragging.y };
        this.apply();
      }
    });
    window.addEventListener('mouseup', () => {
      dragging = null;
    });
  }

  private select(event: MouseEvent): void {
    const cluster = (event.target as Element).closest('g.cluster');
    if (!cluster || !cluster.id.startsWith('component-') || !this.reply) {
      return;
    }
    this.canvas.querySelectorAll('g.cluster.rlwb-selected').forEach((node) => node.classList.remove('rlwb-selected'));
    cluster.classList.add('rlwb-selected');
    const details = this.reply.components[cluster.id.slice('component-'.length)];
    if (details) {
      this.details.replaceChildren(...describe(details));
    }
  }
}

function describe(details: IComponentDetails): HTMLElement[] {
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

function select(className: string, choices: [string, string][]): HTMLSelectElement {
  const node = document.createElement('select');
  node.className = className;
  node.append(...choices.map(([value, label]) => option(value, label)));
  return node;
}

function option(value: string, label: string): HTMLOptionElement {
  const node = document.createElement('option');
  node.value = value;
  node.textContent = label;
  return node;
}
