// The "Where the bytes go" treemap webview: one directory of a repository's history at a time, its
// subdirectories and paths as squarified cells by on-disk bytes (src/common/squarify.ts), the
// larger subdirectories showing their own contents inside. Click or Enter zooms into a directory
// or lists a path's blobs (asked of the host, which opens one as an object document); the
// breadcrumb, Backspace and Escape go up; arrow keys move between cells; hover and focus show a
// cell's totals. Every string from the repository reaches the page as text (media/common/dom.ts).
import { formatBytes, formatCount } from '../../src/common/format.ts';
import { squarify, type TreemapRect } from '../../src/common/squarify.ts';
import {
  cellDetails,
  formatCellShare,
  parentDirectory,
  SizesTree,
  type TreemapCell,
} from '../../src/presentation/bytes-treemap.ts';
import { normalizeBytesTreemapState } from '../../src/presentation/bytes-treemap-state.ts';
import { blobStorageText } from '../../src/presentation/sizes-text.ts';
import {
  BYTES_TREEMAP_PROTOCOL_VERSION,
  type BytesTreemapData,
  type BytesTreemapReplies,
  type BytesTreemapState,
  type HostToWebview,
  type WebviewToHost,
} from '../../src/protocol/bytes-treemap-protocol.ts';
import type { PathBlob } from '../../src/protocol/server-protocol.ts';
import { h, objectLink, replaceChildren } from '../common/dom.ts';
import { startWebview } from '../common/start-webview.ts';
import { moveFocus, type Direction } from '../../src/presentation/treemap-navigation.ts';

/** A cell shows its name from this size up, and its bytes below the name from the second size. */
const LABEL_MIN = { width: 44, height: 18 };
const SIZE_MIN = { width: 60, height: 34 };
/** A directory's cell draws its own cells inside from this size up (one level, not interactive). */
const NESTED_MIN = { width: 90, height: 64 };
const NESTED_CELLS = 60;
const NESTED_TOP = 18;

// The host's `show` answers `ready`; sent unasked (an answer to a page since reloaded) it is shown all the same.
const connection = startWebview<WebviewToHost, HostToWebview, BytesTreemapReplies>((message) => shown(message));
const saved = normalizeBytesTreemapState(connection.savedState);

const root = document.getElementById('bytes-treemap')!;
const breadcrumb = h('nav', { class: 'breadcrumb', 'aria-label': 'Directory' });
const upButton = h('button', { type: 'button', class: 'secondary', title: 'Up one directory (Backspace)' }, 'Up');
const copyButton = h(
  'button',
  { type: 'button', class: 'secondary', title: "The directory's table: path, packed, unpacked, share" },
  'Copy as Markdown',
);
const details = h('div', { class: 'details', 'aria-live': 'polite' });
const map = h('div', { class: 'treemap', role: 'group', tabindex: '-1' });
const note = h('p', { class: 'note' });
const blobsSection = h('section', { class: 'blobs', hidden: true, 'aria-label': 'Blobs at the path' });

interface View {
  data: BytesTreemapData;
  tree: SizesTree;
  directory: string;
  /** The cells drawn (those with bytes), in the layout's order, with their rectangles in pixels. */
  cells: TreemapCell[];
  rects: TreemapRect[];
  focused: number;
  blobsOf: string | null;
}

let view: View | undefined;

function saveState(): void {
  if (!view) return;
  const state: BytesTreemapState = {
    version: BYTES_TREEMAP_PROTOCOL_VERSION,
    repository: view.data.repositoryId,
    directory: view.directory,
    blobsOf: view.blobsOf,
  };
  connection.saveState(state);
}

/** Whole pixels, edges shared: a cell ends where its neighbour begins, so nothing overlaps or gaps. */
function snapped(r: TreemapRect): TreemapRect {
  const x = Math.round(r.x);
  const y = Math.round(r.y);
  return { x, y, width: Math.round(r.x + r.width) - x, height: Math.round(r.y + r.height) - y };
}

function cellClass(cell: TreemapCell): string {
  return ['cell', cell.kind, cell.deleted !== null ? 'deleted' : ''].filter(Boolean).join(' ');
}

function cellLabel(cell: TreemapCell): string {
  return `${cell.name}: ${formatBytes(cell.disk)} packed, ${formatBytes(cell.inflated)} unpacked, ${formatCellShare(cell.share)}${cell.deleted === null ? '' : `, deleted ${cell.deleted}`}`;
}

/** A subdirectory's own cells, drawn small inside its cell: what it holds, at a glance. */
function nestedCells(tree: SizesTree, cell: TreemapCell, rect: TreemapRect): HTMLElement[] {
  if (cell.kind !== 'directory' || rect.width < NESTED_MIN.width || rect.height < NESTED_MIN.height) return [];
  const inner = tree.cells(cell.path, NESTED_CELLS).filter((c) => c.disk > 0);
  const bounds = { x: 2, y: NESTED_TOP, width: rect.width - 4, height: rect.height - NESTED_TOP - 2 };
  const placed = squarify(
    inner.map((c) => c.disk),
    bounds,
  );
  return inner.flatMap((c, i) => {
    const r = placed[i];
    if (!r) return [];
    const s = snapped(r);
    if (s.width < 2 || s.height < 2) return [];
    const box = h('span', { class: `sub ${c.kind}${c.deleted !== null ? ' deleted' : ''}`, 'aria-hidden': 'true' });
    box.style.cssText = `left:${s.x}px;top:${s.y}px;width:${s.width}px;height:${s.height}px`;
    if (s.width >= LABEL_MIN.width && s.height >= LABEL_MIN.height) box.textContent = c.name;
    return [box];
  });
}

function draw(): void {
  if (!view) return;
  const { tree, directory } = view;
  const width = map.clientWidth;
  const height = map.clientHeight;
  const cells = tree.cells(directory).filter((c) => c.disk > 0);
  const placed = squarify(
    cells.map((c) => c.disk),
    { x: 0, y: 0, width, height },
  );
  view.cells = cells;
  view.rects = placed.map((r) => snapped(r!));
  view.focused = Math.min(view.focused, Math.max(0, cells.length - 1));
  map.dataset.directory = directory;
  map.setAttribute(
    'aria-label',
    `${directory === '' ? 'Top level' : `${directory}/`}: its directories and paths by on-disk bytes`,
  );
  const elements = cells.map((cell, i) => {
    const r = view!.rects[i]!;
    const element = h('div', {
      class: cellClass(cell),
      role: 'button',
      tabindex: i === view!.focused ? '0' : '-1',
      'aria-label': cellLabel(cell),
      'data-index': i,
      'data-path': cell.path,
      'data-kind': cell.kind,
      'data-disk': cell.disk,
    });
    element.style.cssText = `left:${r.x}px;top:${r.y}px;width:${r.width}px;height:${r.height}px`;
    if (cell.kind === 'file' && cell.path === view!.blobsOf) element.classList.add('selected');
    const nested = nestedCells(tree, cell, r);
    const size = `${formatBytes(cell.disk)} · ${formatCellShare(cell.share)}`;
    if (nested.length > 0)
      // A directory drawn with its contents says its size on its one header line.
      element.append(h('span', { class: 'name' }, cell.name, h('span', { class: 'inline-size' }, size)), ...nested);
    else if (r.width >= LABEL_MIN.width && r.height >= LABEL_MIN.height) {
      element.append(h('span', { class: 'name' }, cell.name));
      if (r.width >= SIZE_MIN.width && r.height >= SIZE_MIN.height) element.append(h('span', { class: 'size' }, size));
    }
    return element;
  });
  replaceChildren(map, ...elements);
  if (cells.length === 0) map.append(h('p', { class: 'empty' }, 'Nothing here takes bytes on disk.'));
  drawBreadcrumb();
  showDetails(cells[view.focused]);
}

function drawBreadcrumb(): void {
  if (!view) return;
  const crumbs = view.tree.breadcrumb(view.directory, view.data.repositoryName);
  const parts: (HTMLElement | string)[] = [];
  crumbs.forEach((crumb, i) => {
    if (i > 0) parts.push(h('span', { class: 'separator', 'aria-hidden': 'true' }, '/'));
    const current = i === crumbs.length - 1;
    const button = h(
      'button',
      { type: 'button', class: 'crumb', 'aria-current': current ? 'location' : undefined, 'data-path': crumb.path },
      crumb.name,
    );
    button.addEventListener('click', () => zoomTo(crumb.path));
    parts.push(button);
  });
  const own = view.tree.directory(view.directory);
  if (own)
    parts.push(
      h('span', { class: 'total' }, `${formatBytes(own.disk)} packed · ${formatBytes(own.inflated)} unpacked`),
    );
  replaceChildren(breadcrumb, ...parts);
  upButton.disabled = view.directory === '';
}

/** The totals of the cell under the pointer or with the focus (the directory's own when none). */
function showDetails(cell: TreemapCell | undefined): void {
  if (!view) return;
  if (cell === undefined) {
    const own = view.tree.directory(view.directory);
    replaceChildren(details, own ? `${formatBytes(own.disk)} packed, ${formatBytes(own.inflated)} unpacked` : '');
    return;
  }
  const [name, ...lines] = cellDetails(cell);
  replaceChildren(
    details,
    h('strong', { class: 'path' }, name),
    ...lines.map((line) => h('span', { class: line.startsWith('deleted') ? 'deleted-date' : '' }, line)),
  );
}

function zoomTo(directory: string): void {
  if (!view || !(directory === '' || view.tree.isDirectory(directory))) return;
  const from = view.directory;
  view.directory = directory;
  view.focused = 0;
  draw();
  // Going up puts the focus back on the directory just left.
  const back = view.cells.findIndex((c) => c.path === from && c.kind === 'directory');
  focusCell(back >= 0 ? back : 0);
  saveState();
}

function focusCell(index: number): void {
  if (!view || view.cells.length === 0) return;
  const cells = map.querySelectorAll<HTMLElement>('.cell');
  cells[view.focused]?.setAttribute('tabindex', '-1');
  view.focused = index;
  const element = cells[index];
  element?.setAttribute('tabindex', '0');
  element?.focus();
  showDetails(view.cells[index]);
}

function activate(index: number): void {
  const cell = view?.cells[index];
  if (!cell) return;
  if (cell.kind === 'directory') zoomTo(cell.path);
  else if (cell.kind === 'file') void listBlobs(cell.path);
}

async function listBlobs(path: string): Promise<void> {
  if (!view) return;
  view.blobsOf = path;
  saveState();
  markSelected();
  blobsSection.hidden = false;
  replaceChildren(blobsSection, blobsHeading(path), h('p', { class: 'loading' }, 'Reading the blobs at this path…'));
  const reply = await connection.host.request({ type: 'pathBlobs', path });
  if (view.blobsOf !== path) return;
  if (reply.type === 'blobsFailed') {
    replaceChildren(blobsSection, blobsHeading(path), h('p', { class: 'error' }, reply.message));
    return;
  }
  replaceChildren(blobsSection, blobsHeading(path, reply.total), blobsTable(reply.blobs));
  if (reply.total > reply.blobs.length)
    blobsSection.append(
      h(
        'p',
        { class: 'more' },
        `… ${formatCount(reply.total - reply.blobs.length)} more (${formatCount(reply.blobs.length)} of ${formatCount(reply.total)} listed, newest first)`,
      ),
    );
}

/** The path whose blobs are listed is outlined in the map. */
function markSelected(): void {
  for (const element of map.querySelectorAll<HTMLElement>('.cell'))
    element.classList.toggle('selected', element.dataset.kind === 'file' && element.dataset.path === view?.blobsOf);
}

function closeBlobs(): void {
  if (!view) return;
  view.blobsOf = null;
  markSelected();
  blobsSection.hidden = true;
  replaceChildren(blobsSection);
  saveState();
  focusCell(view.focused);
}

function blobsHeading(path: string, total?: number): HTMLElement {
  const close = h('button', { type: 'button', class: 'secondary close', title: 'Close (Escape)' }, 'Close');
  close.addEventListener('click', closeBlobs);
  return h(
    'header',
    {},
    h('h2', {}, 'Blobs at ', h('code', {}, path), total === undefined ? '' : ` (${formatCount(total)})`),
    close,
  );
}

function blobsTable(blobs: PathBlob[]): HTMLElement {
  const open = (oid: string): void => connection.post({ type: 'openObject', oid });
  const rows = blobs.map((blob) =>
    h(
      'tr',
      {},
      h(
        'td',
        {},
        blob.stored === 'missing'
          ? h('code', {}, blob.oid.slice(0, 10))
          : objectLink(blob.oid, blob.oid.slice(0, 10), open),
      ),
      h('td', {}, blob.date),
      h('td', { class: 'number', title: `${formatCount(blob.disk)} bytes` }, formatBytes(blob.disk)),
      h('td', { class: 'number', title: `${formatCount(blob.inflated)} bytes` }, formatBytes(blob.inflated)),
      h('td', {}, blobStorageText(blob)),
    ),
  );
  return h(
    'table',
    { class: 'numbers' },
    h(
      'thead',
      {},
      h(
        'tr',
        {},
        h('th', {}, 'blob'),
        h('th', {}, 'first seen'),
        h('th', {}, 'packed'),
        h('th', {}, 'unpacked'),
        h('th', {}, 'stored'),
      ),
    ),
    h('tbody', {}, ...rows),
  );
}

const ARROWS: Record<string, Direction> = { ArrowLeft: 'left', ArrowRight: 'right', ArrowUp: 'up', ArrowDown: 'down' };

map.addEventListener('keydown', (event) => {
  if (!view) return;
  const direction = ARROWS[event.key];
  if (direction !== undefined) {
    event.preventDefault();
    const next = moveFocus(view.rects, view.focused, direction);
    if (next !== undefined) focusCell(next);
  } else if (event.key === 'Enter' || event.key === ' ') {
    event.preventDefault();
    activate(view.focused);
  } else if (event.key === 'Home' || event.key === 'End') {
    event.preventDefault();
    focusCell(event.key === 'Home' ? 0 : view.cells.length - 1);
  }
});

// Backspace and Escape work wherever the focus is in the page (but in the blob list's links they
// close the list first).
document.addEventListener('keydown', (event) => {
  if (!view || event.defaultPrevented) return;
  if (event.key === 'Escape' && view.blobsOf !== null) {
    event.preventDefault();
    closeBlobs();
  } else if ((event.key === 'Backspace' || event.key === 'Escape') && view.directory !== '') {
    event.preventDefault();
    zoomTo(parentDirectory(view.directory));
  }
});

const cellIndexOf = (target: EventTarget | null): number | undefined => {
  const element = (target as Element | null)?.closest?.('.cell') as HTMLElement | null;
  return element?.dataset.index === undefined ? undefined : Number(element.dataset.index);
};

map.addEventListener('click', (event) => {
  const index = cellIndexOf(event.target);
  if (index === undefined) return;
  focusCell(index);
  activate(index);
});
map.addEventListener('mouseover', (event) => {
  const index = cellIndexOf(event.target);
  if (index !== undefined) showDetails(view?.cells[index]);
});
map.addEventListener('mouseleave', () => showDetails(view?.cells[view.focused]));
map.addEventListener('focusin', (event) => {
  const index = cellIndexOf(event.target);
  if (index !== undefined && view && index !== view.focused) focusCell(index);
});
upButton.addEventListener('click', () => {
  if (view) zoomTo(parentDirectory(view.directory));
});
copyButton.addEventListener('click', () => {
  if (view) connection.post({ type: 'copyMarkdown', directory: view.directory });
});

let redraw = 0;
new ResizeObserver(() => {
  cancelAnimationFrame(redraw);
  redraw = requestAnimationFrame(draw);
}).observe(map);

function show(data: BytesTreemapData): void {
  const tree = new SizesTree(data.directories, data.paths);
  // A reload keeps the directory and the listed blobs, when the history still has them.
  const sameRepository = saved.repository === data.repositoryId;
  const directory = sameRepository && tree.isDirectory(saved.directory) ? saved.directory : '';
  view = { data, tree, directory, cells: [], rects: [], focused: 0, blobsOf: null };
  root.removeAttribute('aria-busy');
  replaceChildren(
    root,
    h('header', { class: 'toolbar' }, breadcrumb, h('span', { class: 'spacer' }), upButton, copyButton),
    details,
    map,
    note,
    blobsSection,
  );
  replaceChildren(
    note,
    `Cells by on-disk ("packed") bytes over ${formatCount(data.commits)} commits, as git filter-repo --analyze counts them (a blob at each path it was at). Enter or click: open a directory, or list a path's blobs · Backspace or Escape: up · arrow keys: move.`,
    data.omittedPaths > 0
      ? ` The ${formatCount(data.omittedPaths)} smallest paths are drawn with their directory's rest.`
      : '',
  );
  draw();
  saveState();
  if (sameRepository && saved.blobsOf !== null && data.paths.some((p) => p.path === saved.blobsOf))
    void listBlobs(saved.blobsOf);
}

function shown(message: HostToWebview): void {
  if (message.type === 'show') show(message.data);
  else if (message.type === 'failed') {
    root.removeAttribute('aria-busy');
    replaceChildren(root, h('p', { class: 'error' }, `Could not read where the bytes go: ${message.message}`));
  }
}

void connection.host.request({ type: 'ready', version: BYTES_TREEMAP_PROTOCOL_VERSION }).then(shown);
