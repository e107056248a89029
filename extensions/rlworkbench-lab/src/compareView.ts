// The compare view (main area): runs ticked in the runs panel side by side — their learning curves overlaid (one
// colour per run, a legend saying where each curve comes from, optional smoothing) and a config diff, the key
// paths whose values differ between them. Data: GET rlworkbench/compare?runs=<id>,<id>… (rlworkbench/lab).
import { Widget } from '@lumino/widgets';
import { requestAPI, ICompareReply, ICompareRun } from './api';
import { button, element, valueText } from './dom';
import { curveChart, ISeries, PALETTE } from './curveChart';

const CHART_HEIGHT = 380;
const SMOOTHING: [string, string][] = [['1', 'raw returns'], ['5', 'mean of 5 episodes'],
  ['20', 'mean of 20 episodes']];

export class CompareView extends Widget {
  private smoothing: HTMLSelectElement;
  private message: HTMLElement;
  private chart: HTMLElement;
  private legend: HTMLElement;
  private diff: HTMLElement;
  private reply: ICompareReply | null = null;

  constructor(private runIds: string[]) {
    super();
    this.addClass('rlwb-compare');
    this.smoothing = document.createElement('select');
    this.smoothing.className = 'rlwb-smoothing';
    for (const [value, text] of SMOOTHING) {
      const option = element('option', '', text) as HTMLOptionElement;
      option.value = value;
      this.smoothing.appendChild(option);
    }
    this.smoothing.addEventListener('change', () => this.draw());
    const bar = element('div', 'rlwb-graph-toolbar');
    this.message = element('span', 'rlwb-graph-message');
    bar.append(this.smoothing, button('Reload', 'rlwb-reload', () => this.load()), this.message);
    this.chart = element('div', 'rlwb-compare-chart');
    this.legend = element('div', 'rlwb-compare-legend');
    this.diff = element('div', 'rlwb-compare-diff');
    const body = element('div', 'rlwb-compare-body');
    body.append(element('h3', '', 'Learning curves'), this.chart, this.legend, element('h3', '', 'Config diff'),
      this.diff);
    this.node.append(bar, body);
    void this.load();
  }

  async load(): Promise<void> {
    this.message.textContent = 'reading the runs…';
    try {
      this.reply = await requestAPI<ICompareReply>(`compare?runs=${this.runIds.join(',')}`);
    } catch (error) {
      this.message.textContent = `cannot compare these runs: ${error}`;
      this.message.classList.add('rlwb-error');
      return;
    }
    this.message.classList.remove('rlwb-error');
    this.message.textContent = `${this.reply.runs.length} runs · read ${new Date().toLocaleTimeString()}`;
    this.legend.replaceChildren(...this.reply.runs.map((run, index) => legendEntry(run, colour(index))));
    this.diff.replaceChildren(diffTable(this.reply));
    this.draw();
  }

  protected onResize(): void {
    this.draw();
  }

  protected onAfterShow(): void {
    this.draw();
  }

  private draw(): void {
    if (!this.reply || !this.isVisible) {
      return;
    }
    const span = Number(this.smoothing.value);
    const series: ISeries[] = this.reply.runs.map((run, index) => ({
      id: run.id, label: run.label, color: colour(index), points: smoothed(run.curve, span)
    }));
    const width = Math.max(360, this.chart.clientWidth);
    this.chart.replaceChildren(curveChart(series, width, CHART_HEIGHT, { x: 'env steps', y: 'episode return' }));
  }
}

function colour(index: number): string {
  return PALETTE[index % PALETTE.length];
}

/** Each point's return as the mean of the last `span` episodes up to it. */
function smoothed(points: [number, number][], span: number): [number, number][] {
  let sum = 0;
  return points.map(([x, y], i) => {
    sum += y - (i >= span ? points[i - span][1] : 0);
    return [x, sum / Math.min(i + 1, span)];
  });
}

function swatch(color: string): HTMLElement {
  const node = element('span', 'rlwb-swatch');
  node.style.background = color;
  return node;
}

function legendEntry(run: ICompareRun, color: string): HTMLElement {
  const entry = element('div', 'rlwb-legend-entry');
  entry.dataset.runId = run.id;
  const where = run.source === 'episodes.csv' ? 'from episodes.csv' : 'the last ones, from its record';
  entry.append(swatch(color), element('span', 'rlwb-legend-label', run.label),
    element('span', 'rlwb-legend-note', `${run.state ?? ''} · ${run.curve.length} episodes ${where}`));
  return entry;
}

function diffTable(reply: ICompareReply): HTMLElement {
  if (reply.diff.length === 0) {
    return element('div', 'rlwb-diff-same', 'The configs are the same.');
  }
  const table = document.createElement('table');
  table.className = 'rlwb-diff-table';
  const head = table.insertRow();
  head.appendChild(element('th', '', 'key path'));
  reply.runs.forEach((run, index) => {
    const cell = element('th', '');
    cell.append(swatch(colour(index)), document.createTextNode(run.label));
    head.appendChild(cell);
  });
  for (const row of reply.diff) {
    const line = table.insertRow();
    line.className = 'rlwb-diff-row';
    line.dataset.path = row.path;
    line.appendChild(element('td', 'rlwb-diff-path', row.path));
    for (const run of reply.runs) {
      const present = run.id in row.values;
      const cell = element('td', present ? '' : 'rlwb-diff-missing', present ? valueText(row.values[run.id]) : '—');
      cell.title = present ? JSON.stringify(row.values[run.id]) : 'not in this config';
      line.appendChild(cell);
    }
  }
  return table;
}
