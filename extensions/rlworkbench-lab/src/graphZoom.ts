// The graph viewer's drawing in a scrolling viewport, at a scale the user sees: it opens where every node label is
// at least LEGIBLE_PX on screen (or where the whole drawing fits, when that is larger), and scrolls beyond; − and +
// step the zoom, the zoom % is shown (a click on it goes back to the opening scale), Fit shows the whole drawing,
// Ctrl/⌘ + wheel zooms at the pointer, a drag pans. 100 % is the SVG's natural size (graphviz's points, 4/3 px).
// The legible scale, the natural size, the zoom text and the gestures are the notebook graph pane's own: one module,
// rlworkbench/workbench/pan_zoom.js, which this bundle carries.
import {
  anchoredOffset, clampScale, fitScale, legibleScale, naturalSize, panAndZoom, zoomText
} from '../../../rlworkbench/workbench/pan_zoom';

export { LEGIBLE_PX } from '../../../rlworkbench/workbench/pan_zoom';
const STEP = 1.25;
const MAX_SCALE = 4;

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
    this.scale = clampScale(scale, MAX_SCALE);
    this.svg.style.width = `${this.natural.width * this.scale}px`;
    this.svg.style.height = `${this.natural.height * this.scale}px`;
    this.level.textContent = zoomText(this.scale);
    this.canvas.dataset.scale = this.scale.toFixed(4);
    if (anchor) { // keep the drawing's point under the pointer where it is (the offset is minus the scroll)
      const ratio = this.scale / previous;
      this.viewport.scrollLeft = -anchoredOffset(-this.viewport.scrollLeft, anchor.x, ratio);
      this.viewport.scrollTop = -anchoredOffset(-this.viewport.scrollTop, anchor.y, ratio);
    }
  }

  /** The scale at which the drawing fits the viewport (its width only: `widthOnly`). */
  private fitScale(widthOnly = false): number {
    const room = { width: this.viewport.clientWidth, height: this.viewport.clientHeight };
    return fitScale(room, this.natural, widthOnly, 4);
  }

  private panAndZoom(): void {
    panAndZoom(this.viewport, {
      zoom: (factor, x, y) => this.zoomByHand(this.scale * factor, { x, y }),
      wheelZooms: (event) => event.ctrlKey || event.metaKey, // else the wheel scrolls
      panStart: () => ({ left: this.viewport.scrollLeft, top: this.viewport.scrollTop }),
      pan: (start, dx, dy) => {
        this.viewport.scrollLeft = start.left - dx;
        this.viewport.scrollTop = start.top - dy;
      }
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
