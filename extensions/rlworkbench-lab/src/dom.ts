// Small DOM helpers the panel and the views share.

export function element(tag: string, className: string, text?: string): HTMLElement {
  const node = document.createElement(tag);
  if (className) {
    node.className = className;
  }
  if (text !== undefined) {
    node.textContent = text;
  }
  return node;
}

export function button(label: string, className: string, onClick: () => void | Promise<void>): HTMLButtonElement {
  const node = document.createElement('button');
  node.className = `jp-Button rlwb-button ${className}`;
  node.textContent = label;
  node.addEventListener('click', () => void onClick());
  return node;
}

export function clock(seconds: number): string {
  return new Date(seconds * 1000).toLocaleTimeString();
}

/** A config or parameter value as text: strings as they are, others as JSON, numbers to `digits` significant
 * digits when given. */
export function valueText(value: unknown, digits?: number): string {
  if (typeof value === 'number' && digits !== undefined && !Number.isInteger(value)) {
    return Number(value.toPrecision(digits)).toString();
  }
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** `path=value, …` of an experiment trial's parameters. */
export function paramsText(params: { [path: string]: unknown } | undefined): string {
  return Object.entries(params ?? {}).map(([path, value]) => `${path}=${valueText(value, 4)}`).join(', ');
}
