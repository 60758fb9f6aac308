// DOM building with text nodes only: every string from a repository (paths, commands, policy names
// the host echoes) reaches the page through textContent or an attribute, never through innerHTML.

type Child = Node | string | number | null | undefined | false;
type Attributes = Record<string, string | number | boolean | undefined>;

/** `h('th', { scope: 'row' }, '96m')`: attributes by setAttribute (booleans add or omit), children as text. */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attributes: Attributes = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
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
    parent.appendChild(
      typeof child === 'string' || typeof child === 'number' ? document.createTextNode(String(child)) : child,
    );
  }
}

/** Replaces an element's children. */
export function replaceChildren(parent: Element, ...children: Child[]): void {
  parent.replaceChildren();
  append(parent, ...children);
}

/** The last path component, for labels (the full path goes in a title). */
export function baseName(file: string): string {
  const parts = file.split(/[\\/]/);
  return parts[parts.length - 1] || file;
}

/**
 * An object id that opens its object: a button (focusable, Enter and Space work) showing `text`, the
 * full id in its title and data-oid. `open` runs on click; the page posts to its host, which runs
 * packscope.openObject. The id is text, like every repository-derived string.
 */
export function objectLink(oid: string, text: string, open: (oid: string) => void): HTMLButtonElement {
  const button = h(
    'button',
    { type: 'button', class: 'object-link', 'data-oid': oid, title: `${oid}: open the object` },
    text,
  );
  button.addEventListener('click', () => open(oid));
  return button;
}
