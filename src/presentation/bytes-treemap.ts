/**
 * What the "Where the bytes go" treemap shows, from the sizes document's directories and paths
 * (packscope/sizes): a directory's cells (its subdirectories and the paths directly in it, most
 * on-disk bytes first, with what the panel was not sent gathered in one cell), their shares, the
 * breadcrumb of a directory, and the Markdown table the panel copies. Pure (no DOM, no vscode):
 * the webview draws these cells and the host copies this Markdown, so both hold the same numbers.
 */
import { formatBytes, formatCount } from '../common/format.ts';
import { markdownText } from '../common/markdown-text.ts';
import { visibleText } from '../common/visible-text.ts';
import type { SizesRow } from '../protocol/server-protocol.ts';

/** Cells drawn in one directory at most: the smaller rest are one cell (they would be slivers). */
export const MAX_TREEMAP_CELLS = 300;

export interface TreemapCell {
  /** The directory's or path's full name; for `rest`, the directory's own name. */
  path: string;
  /** What the cell says: the last component (a directory's with a slash), or `12 smaller paths`. */
  name: string;
  kind: 'directory' | 'file' | 'rest';
  inflated: number;
  disk: number;
  /** The deletion date, or null while present (a `rest` cell is never dated). */
  deleted: string | null;
  /** Its part of the directory's on-disk bytes, 0 to 1. */
  share: number;
  /** For `rest`: how many paths and directories it stands for. */
  count?: number;
}

const parentOf = (name: string): string => {
  const slash = name.lastIndexOf('/');
  return slash < 0 ? '' : name.slice(0, slash);
};

const lastComponent = (name: string): string => name.slice(name.lastIndexOf('/') + 1);

/** filter-repo's order: on-disk bytes, then the name, both descending. */
const bySize = (a: SizesRow, b: SizesRow): number =>
  b.disk - a.disk || (a.path < b.path ? 1 : a.path > b.path ? -1 : 0);

/** A history's directories and paths by directory, for the treemap's cells. */
export class SizesTree {
  private readonly directoryRows = new Map<string, SizesRow>();
  private readonly below = new Map<string, { directories: SizesRow[]; files: SizesRow[] }>();

  /** `directories` and `paths` as the sizes document gives them (a `""` directory is the top level). */
  constructor(directories: readonly SizesRow[], paths: readonly SizesRow[]) {
    for (const row of directories) this.directoryRows.set(row.path, row);
    const childrenOf = (name: string): { directories: SizesRow[]; files: SizesRow[] } => {
      let children = this.below.get(name);
      if (!children) this.below.set(name, (children = { directories: [], files: [] }));
      return children;
    };
    for (const row of directories) if (row.path !== '') childrenOf(parentOf(row.path)).directories.push(row);
    for (const row of paths) childrenOf(parentOf(row.path)).files.push(row);
  }

  /** The directory's own row; the top level's is `""`. */
  directory(name: string): SizesRow | undefined {
    return this.directoryRows.get(name);
  }

  isDirectory(name: string): boolean {
    return this.directoryRows.has(name);
  }

  /**
   * A directory's cells, most on-disk bytes first: its subdirectories and paths, the smaller ones
   * past `maxCells` in one `rest` cell, which also holds the bytes of paths the tree was not given
   * (the directory's total less its cells').
   */
  cells(name: string, maxCells = MAX_TREEMAP_CELLS): TreemapCell[] {
    const own = this.directoryRows.get(name);
    const children = this.below.get(name) ?? { directories: [], files: [] };
    const rows = [
      ...children.directories.map((row) => ({ row, kind: 'directory' as const })),
      ...children.files.map((row) => ({ row, kind: 'file' as const })),
    ].sort((a, b) => bySize(a.row, b.row));
    const total = own?.disk ?? rows.reduce((sum, r) => sum + r.row.disk, 0);
    const share = (disk: number): number => (total > 0 ? disk / total : 0);
    const shown = rows.slice(0, maxCells);
    const cells: TreemapCell[] = shown.map(({ row, kind }) => ({
      path: row.path,
      name: kind === 'directory' ? `${lastComponent(row.path)}/` : lastComponent(row.path),
      kind,
      inflated: row.inflated,
      disk: row.disk,
      deleted: row.deleted,
      share: share(row.disk),
    }));
    const left = rows.slice(maxCells);
    const restDisk = total - shown.reduce((sum, r) => sum + r.row.disk, 0);
    const restInflated =
      own === undefined
        ? left.reduce((sum, r) => sum + r.row.inflated, 0)
        : own.inflated - shown.reduce((sum, r) => sum + r.row.inflated, 0);
    if (left.length > 0 || restDisk > 0) {
      const count = left.length;
      cells.push({
        path: name,
        name: count > 0 ? `${formatCount(count)} smaller ${count === 1 ? 'entry' : 'entries'}` : 'paths not listed',
        kind: 'rest',
        inflated: Math.max(0, restInflated),
        disk: Math.max(0, restDisk),
        deleted: null,
        share: share(Math.max(0, restDisk)),
        count,
      });
    }
    return cells;
  }

  /** The directories from the top level down to `name`, each with its last component (the top level's is `label`). */
  breadcrumb(name: string, label: string): { path: string; name: string }[] {
    const crumbs = [{ path: '', name: label }];
    if (name === '') return crumbs;
    const parts = name.split('/');
    parts.forEach((part, i) => crumbs.push({ path: parts.slice(0, i + 1).join('/'), name: part }));
    return crumbs;
  }
}

/** A directory's parent (the top level's is itself). */
export function parentDirectory(name: string): string {
  return parentOf(name);
}

/** `42.0%`, `<0.1%`, `0%`: a cell's share as the panel and the Markdown print it. */
export function formatCellShare(share: number): string {
  if (share <= 0) return '0%';
  if (share < 0.001) return '<0.1%';
  return `${(share * 100).toFixed(1)}%`;
}

/** The lines the panel shows for a hovered or focused cell. */
export function cellDetails(cell: TreemapCell): string[] {
  const name = cell.kind === 'rest' ? cell.name : visibleText(cell.path) + (cell.kind === 'directory' ? '/' : '');
  return [
    name,
    `packed (on disk): ${formatBytes(cell.disk)} (${formatCount(cell.disk)} bytes)`,
    `unpacked (inflated): ${formatBytes(cell.inflated)} (${formatCount(cell.inflated)} bytes)`,
    `${formatCellShare(cell.share)} of the directory`,
    cell.kind === 'rest' ? '' : cell.deleted === null ? 'present' : `deleted ${cell.deleted}`,
  ].filter((line) => line !== '');
}

/** The current directory's table as the panel's "Copy as Markdown" copies it. */
export function treemapMarkdown(tree: SizesTree, directory: string, repositoryName: string): string {
  const own = tree.directory(directory);
  const title = directory === '' ? `${repositoryName} (top level)` : `${repositoryName}: ${directory}/`;
  const lines = [
    `### Where the bytes go: ${markdownText(title)}`,
    '',
    own === undefined
      ? ''
      : `${formatBytes(own.disk)} packed, ${formatBytes(own.inflated)} unpacked, by git filter-repo --analyze's rules (a blob counted at each path it was at).`,
    '',
    '| path | packed | unpacked | share | deleted |',
    '|---|---:|---:|---:|---|',
  ];
  for (const cell of tree.cells(directory, Number.MAX_SAFE_INTEGER)) {
    const name = cell.kind === 'rest' ? cell.name : `${visibleText(cell.path)}${cell.kind === 'directory' ? '/' : ''}`;
    lines.push(
      `| ${markdownText(name)} | ${formatBytes(cell.disk)} | ${formatBytes(cell.inflated)} | ${formatCellShare(cell.share)} | ${cell.deleted ?? ''} |`,
    );
  }
  return `${lines.filter((line, i) => line !== '' || lines[i - 1] !== '').join('\n')}\n`;
}
