// Types of pan_zoom.js (the pan/zoom both graph views share), for the JupyterLab extension's TypeScript.

export interface ISize {
  width: number;
  height: number;
}

export interface IPanZoomHandlers<S> {
  zoom(factor: number, x: number, y: number): void;
  panStart(): S;
  pan(start: S, dx: number, dy: number): void;
  wheelZooms?(event: WheelEvent): boolean;
  draggingClass?: string;
}

export const LEGIBLE_PX: number;
export const MIN_SCALE: number;
export function naturalSize(svg: SVGSVGElement): ISize;
export function legibleScale(svg: SVGSVGElement, naturalWidth: number): number;
export function clampScale(scale: number, maxScale: number): number;
export function fitScale(room: ISize, natural: ISize, widthOnly?: boolean, pad?: number): number;
export function zoomText(scale: number, fitted?: boolean): string;
export function anchoredOffset(offset: number, anchor: number, ratio: number): number;
export function panAndZoom<S>(viewport: HTMLElement, handlers: IPanZoomHandlers<S>): void;
