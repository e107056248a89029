// Overlaid learning curves as one SVG, drawn here (no chart library): a line per series over shared axes with
// round-number ticks and grid lines.
const SVG_NS = 'http://www.w3.org/2000/svg';
const MARGIN = { left: 64, right: 18, top: 14, bottom: 46 };
export const PALETTE = ['#1f77b4', '#ff7f0e', '#2ca02c', '#d62728', '#9467bd', '#8c564b', '#e377c2', '#7f7f7f',
  '#bcbd22', '#17becf'];

export interface ISeries {
  id: string;
  label: string;
  color: string;
  points: [number, number][];
}

export function curveChart(series: ISeries[], width: number, height: number,
  axes: { x: string; y: string }): SVGSVGElement {
  const svg = svgNode('svg', { width, height, class: 'rlwb-chart' }) as SVGSVGElement;
  const points = series.flatMap((one) => one.points);
  if (points.length === 0) {
    svg.appendChild(label('no episodes yet', width / 2, height / 2, 'middle'));
    return svg;
  }
  const xs = ticks(0, Math.max(...points.map(([x]) => x)));
  const ys = ticks(Math.min(...points.map(([, y]) => y)), Math.max(...points.map(([, y]) => y)));
  const plot = { width: width - MARGIN.left - MARGIN.right, height: height - MARGIN.top - MARGIN.bottom };
  const x = scale(xs, MARGIN.left, MARGIN.left + plot.width);
  const y = scale(ys, MARGIN.top + plot.height, MARGIN.top);
  for (const tick of xs) {
    svg.append(svgNode('line', { x1: x(tick), x2: x(tick), y1: MARGIN.top, y2: MARGIN.top + plot.height,
      class: 'rlwb-grid' }), label(compact(tick), x(tick), MARGIN.top + plot.height + 16, 'middle'));
  }
  for (const tick of ys) {
    svg.append(svgNode('line', { x1: MARGIN.left, x2: MARGIN.left + plot.width, y1: y(tick), y2: y(tick),
      class: 'rlwb-grid' }), label(compact(tick), MARGIN.left - 6, y(tick) + 4, 'end'));
  }
  svg.append(svgNode('rect', { x: MARGIN.left, y: MARGIN.top, width: plot.width, height: plot.height,
    class: 'rlwb-plot-frame' }), label(axes.x, MARGIN.left + plot.width / 2, height - 8, 'middle'));
  const yTitle = label(axes.y, 0, 0, 'middle');
  yTitle.setAttribute('transform', `translate(16 ${MARGIN.top + plot.height / 2}) rotate(-90)`);
  svg.appendChild(yTitle);
  for (const one of series) {
    const line = svgNode('polyline', {
      points: one.points.map(([px, py]) => `${x(px).toFixed(1)},${y(py).toFixed(1)}`).join(' '),
      stroke: one.color, class: 'rlwb-curve', 'data-run-id': one.id
    });
    const title = svgNode('title', {});
    title.textContent = one.label;
    line.appendChild(title);
    svg.appendChild(line);
  }
  return svg;
}

/** Round-number ticks (steps of 1, 2 or 5 × 10^k) covering [low, high]. */
export function ticks(low: number, high: number, count = 6): number[] {
  if (high <= low) {
    [low, high] = [low - 1, high + 1];
  }
  const rough = (high - low) / count;
  const magnitude = 10 ** Math.floor(Math.log10(rough));
  const step = magnitude * [1, 2, 5, 10].find((factor) => factor * magnitude >= rough)!;
  const values: number[] = [];
  for (let value = Math.floor(low / step) * step; value < high + step; value += step) {
    values.push(Number(value.toPrecision(12)));
  }
  return values;
}

function scale(domain: number[], from: number, to: number): (value: number) => number {
  const low = domain[0];
  const span = domain[domain.length - 1] - low || 1;
  return (value) => from + ((value - low) / span) * (to - from);
}

const COMPACT = new Intl.NumberFormat(undefined, { notation: 'compact', maximumFractionDigits: 1 });

function compact(value: number): string {
  return COMPACT.format(value);
}

function label(text: string, x: number, y: number, anchor: string): SVGElement {
  const node = svgNode('text', { x, y, 'text-anchor': anchor, class: 'rlwb-chart-label' });
  node.textContent = text;
  return node;
}

function svgNode(tag: string, attributes: { [name: string]: string | number }): SVGElement {
  const node = document.createElementNS(SVG_NS, tag) as SVGElement;
  for (const [name, value] of Object.entries(attributes)) {
    node.setAttribute(name, String(value));
  }
  return node;
}
