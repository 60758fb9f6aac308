// DOM building with text nodes only: every string from a repository (paths, commands, policy names
// the host echoes) reaches the page through textContent or an attribute, never through innerHTML.

type Child = Node | string | number | null | undefined | false;
type Attributes = Record<string, string | number | boolean | undefined>;

/** `h('th', { scope: 'row' }, '96m')`: attributes by setAttribute (booleans add or omit), children as text. */
export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attributes: Attributes = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === false) continue;
    element.setAttribute(name, value === true ? '' : String(value));
  }
  append(element, ...children);
  return element;
}

export function append(parent: Node, ...children: Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    parent.appendChild(typeof child === 'string' || typeof child === 'number' ? document.createTextNode(String(child)) : child);
  }
}

/** Replaces an element's children. */
export function replaceChildren(parent: Element, ...children: Child[]): void {
  parent.replaceChildren();
  append(parent, ...children);
}

const COUNT = new Intl.NumberFormat('en-US');

/** `1,187,090`: exact integers, grouped. */
export function formatCount(value: number): string {
  return COUNT.format(value);
}

/** `312 B`, `1.2 KiB`, `3.4 MiB` (binary units, as the rest of PackScope). */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${value >= 100 ? value.toFixed(0) : value.toFixed(1)} ${units[unit]}`;
}

export function formatPercent(share: number): string {
  return `${(share * 100).toFixed(1)}%`;
}

/** The last path component, for labels (the full path goes in a title). */
export function baseName(file: string): string {
  const parts = file.split(/[\\/]/);
  return parts[parts.length - 1] || file;
}
