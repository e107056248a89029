// The graph viewer's drawing in a scrolling viewport, at a scale the user sees: it opens where every node label is
// at least LEGIBLE_PX on screen (or where the whole drawing fits, when that is larger), and scrolls beyond; − and +
// step the zoom, the zoom % is shown (a click on it goes back to the opening scale), Fit shows the whole drawing,
// Ctrl/⌘ + wheel zooms at the pointer, a drag pans. 100 % is the SVG's natural size (graphviz's points, 4/3 px).

/** The smallest on-screen font size of a node label at the opening scale, in CSS px. */
export const LEGIBLE_PX = 9;
const STEP = 1.25;
const MIN_SCALE = 0.05;
const MAX_SCALE = 4;
const PX_PER_PT = 4 / 3;

export class ZoomPane {
  readonly viewport: HTMLElement;
  readonly controls: HTMLElement;
  private canvas: HTMLElement;
  private level: HTMLButtonElement;
  private svg: SVGSVGElement | null = null;
  private natural = { width: 1, height: 1 }; // px at 100 %
  private legible = 1; // the smallest scale at which every node label is LEGIBLE_PX
  private scale = 1;
  private zoomedByHand = false;

  constructor() {
    this.viewport = document.createElement('div');
    this.viewport.className = 'rlwb-graph-viewport';
    this.canvas = document.createElement('div');
    this.canvas.className = 'rlwb-graph-canvas';
    this.viewport.appendChild(this.canvas);
    this.controls = document.createElement('span');
    this.controls.className = 'rlwb-zoom';
    this.level = control('rlwb-zoom-level', '100 %', 'back to the opening scale, where node labels read',
      () => this.open());
    this.controls.append(
      control('rlwb-zoom-out', '−', 'zoom out', () => this.zoomByHand(this.scale / STEP)),
      this.level,
      control('rlwb-zoom-in', '+', 'zoom in', () => this.zoomByHand(this.scale * STEP)),
      control('rlwb-zoom-fit', 'Fit', 'the whole drawing in view', () => this.zoomByHand(this.fitScale())));
    this.panAndZoom();
  }

  /** The canvas, for clicks on the drawing. */
  get drawing(): HTMLElement {
    return this.canvas;
  }

  /** Shows `svgText`: at the opening scale, or — `keepView`, a redraw of the same view — at the scale and scroll
   * position the user had. */
  show(svgText: string, keepView: boolean): void {
    const scroll = { left: this.viewport.scrollLeft, top: this.viewport.scrollTop };
    this.canvas.innerHTML = svgText;
    this.svg = this.canvas.querySelector('svg');
    if (!this.svg) {
      return;
    }
    this.natural = naturalSize(this.svg);
    this.legible = legibleScale(this.svg, this.natural.width);
    if (keepView) {
      this.zoomTo(this.scale);
      this.viewport.scrollTo(scroll);
    } else {
      this.open();
    }
  }

  /** The opening scale (see the file's comment), scrolled to the top left. */
  open(): void {
    this.zoomedByHand = false;
    this.zoomTo(this.openingScale());
    this.viewport.scrollTo({ left: 0, top: 0 });
  }

  /** After the viewport changed size: the opening scale again, unless the user zoomed. */
  resized(): void {
    if (this.svg && this.viewport.clientWidth && !this.zoomedByHand) {
      this.zoomTo(this.openingScale());
    }
  }

  /** The drawing's width fitted to the viewport, within [legible, max(legible, 100 %)]. */
  private openingScale(): number {
    return Math.max(this.legible, Math.min(1, this.fitScale(true)));
  }

  private zoomByHand(scale: number, anchor?: { x: number; y: number }): void {
    this.zoomedByHand = true;
    this.zoomTo(scale, anchor);
  }

  zoomTo(scale: number, anchor?: { x: number; y: number }): void {
    if (!this.svg) {
      return;
    }
    const previous = this.scale;
    this.scale = Math.min(MAX_SCALE, Math.max(MIN_SCALE, scale));
    this.svg.style.width = `${this.natural.width * this.scale}px`;
    this.svg.style.height = `${this.natural.height * this.scale}px`;
    this.level.textContent = `${Math.round(this.scale * 100)} %`;
    this.canvas.dataset.scale = this.scale.toFixed(4);
    if (anchor) { // keep the drawing's point under the pointer where it is
      const ratio = this.scale / previous;
      this.viewport.scrollLeft = (this.viewport.scrollLeft + anchor.x) * ratio - anchor.x;
      this.viewport.scrollTop = (this.viewport.scrollTop + anchor.y) * ratio - anchor.y;
    }
  }

  /** The scale at which the drawing fits the viewport (its width only: `widthOnly`). */
  private fitScale(widthOnly = false): number {
    const width = (this.viewport.clientWidth - 4) / this.natural.width;
    const height = (this.viewport.clientHeight - 4) / this.natural.height;
    return widthOnly ? width : Math.min(width, height);
  }

  private panAndZoom(): void {
    let dragging: { x: number; y: number; left: number; top: number } | null = null;
    this.viewport.addEventListener('wheel', (event) => {
      if (!(event.ctrlKey || event.metaKey)) {
        return; // the wheel scrolls
      }
      event.preventDefault();
      const box = this.viewport.getBoundingClientRect();
      this.zoomByHand(this.scale * Math.exp(-event.deltaY * 0.0015),
        { x: event.clientX - box.left, y: event.clientY - box.top });
    }, { passive: false });
    this.viewport.addEventListener('mousedown', (event) => {
      if (event.button !== 0 || event.target === this.viewport) {
        return; // a scrollbar's, or not the main button
      }
      dragging = { x: event.clientX, y: event.clientY, left: this.viewport.scrollLeft, top: this.viewport.scrollTop };
    });
    window.addEventListener('mousemove', (event) => {
      if (dragging) {
        this.viewport.scrollLeft = dragging.left - (event.clientX - dragging.x);
        this.viewport.scrollTop = dragging.top - (event.clientY - dragging.y);
      }
    });
    window.addEventListener('mouseup', () => {
      dragging = null;
    });
  }
}

function control(className: string, label: string, title: string, onClick: () => void): HTMLButtonElement {
  const node = document.createElement('button');
  node.className = `jp-Button rlwb-button ${className}`;
  node.textContent = label;
  node.title = title;
  node.addEventListener('click', onClick);
  return node;
}

/** The SVG's size at 100 % in CSS px (graphviz writes `width="1234pt"`). */
function naturalSize(svg: SVGSVGElement): { width: number; height: number } {
  const length = (name: string): number => {
    const text = svg.getAttribute(name) ?? '';
    const value = parseFloat(text);
    return Number.isFinite(value) && value > 0 ? (text.endsWith('pt') ? value * PX_PER_PT : value) : 100;
  };
  return { width: length('width'), height: length('height') };
}

/** The smallest scale at which every node label's font is LEGIBLE_PX on screen (0 without node labels). */
function legibleScale(svg: SVGSVGElement, naturalWidth: number): number {
  const viewBox = svg.viewBox.baseVal;
  const pxPerUnit = viewBox && viewBox.width ? naturalWidth / viewBox.width : 1;
  const sizes = Array.from(svg.querySelectorAll('g.node text'))
    .map((text) => parseFloat(text.getAttribute('font-size') ?? ''))
    .filter((size) => Number.isFinite(size) && size > 0);
  return sizes.length ? LEGIBLE_PX / (Math.min(...sizes) * pxPerUnit) : 0;
}
