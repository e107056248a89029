// A small inline SVG line of recent episode returns.
const SVG_NS = 'http://www.w3.org/2000/svg';

export function sparkline(values: (number | null)[], width = 90, height = 22): SVGSVGElement {
  const svg = document.createElementNS(SVG_NS, 'svg');
  svg.setAttribute('width', String(width));
  svg.setAttribute('height', String(height));
  svg.setAttribute('class', 'rlwb-sparkline');
  const finite = values.filter((v): v is number => v !== null && Number.isFinite(v));
  if (finite.length < 2) {
    return svg;
  }
  const low = Math.min(...finite);
  const high = Math.max(...finite);
  const span = high - low || 1;
  const points = finite.map((value, i) => {
    const x = (i / (finite.length - 1)) * (width - 2) + 1;
    const y = height - 1 - ((value - low) / span) * (height - 2);
    return `${x.toFixed(1)},${y.toFixed(1)}`;
  });
  const line = document.createElementNS(SVG_NS, 'polyline');
  line.setAttribute('points', points.join(' '));
  line.setAttribute('fill', 'none');
  line.setAttribute('stroke', 'var(--jp-brand-color1, #1976d2)');
  line.setAttribute('stroke-width', '1.5');
  svg.appendChild(line);
  return svg;
}
