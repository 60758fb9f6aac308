/**
 * The words of the Packs view's "Where the bytes go" rows, from the sizes document
 * (packscope/sizes): each row's label and description, and the directories as a tree (a directory's
 * rows are its own subdirectories, largest on disk first). Pure (no vscode): the tree's nodes show
 * these strings, the unit tests read them.
 */
import { formatBytes, formatCount } from '../common/format.ts';
import { visibleText } from '../common/visible-text.ts';
import type { PathBlob, SizesCommit, SizesDocument, SizesRow } from '../protocol/server-protocol.ts';

/** At most this many subdirectories under one directory; the rest are counted on one line. */
export const MAX_DIRECTORY_CHILDREN = 50;

export interface SizesRowText {
  /** A key unique among its siblings (the path itself). */
  key: string;
  label: string;
  description: string;
  tooltip: string;
}

export interface DirectoryEntry extends SizesRowText {
  children: DirectoryEntry[];
  /** Subdirectories left out (over MAX_DIRECTORY_CHILDREN). */
  more: number;
}

/** `12.5 MiB on disk · 80.1 MiB inflated · deleted 2020-01-02`. */
export function sizesDescription(row: SizesRow): string {
  return `${formatBytes(row.disk)} on disk · ${formatBytes(row.inflated)} inflated${row.deleted === null ? '' : ` · deleted ${row.deleted}`}`;
}

function tooltipOf(name: string, row: SizesRow): string {
  return [
    name,
    `on disk: ${formatCount(row.disk)} bytes (filter-repo's "packed")`,
    `inflated: ${formatCount(row.inflated)} bytes ("unpacked")`,
    row.deleted === null ? 'present' : `deleted ${row.deleted} (the last commit that names it deletes it)`,
  ].join('\n');
}

/** A path's or an extension's row; `empty` names the empty one (`(no extension)`). */
export function sizesRowText(row: SizesRow, empty = ''): SizesRowText {
  const name = visibleText(row.path) || empty;
  return { key: row.path, label: name, description: sizesDescription(row), tooltip: tooltipOf(name, row) };
}

/** A commit's row: its subject (or id), the bytes its new blobs added, its date and id in the tooltip. */
export function sizesCommitText(commit: SizesCommit): SizesRowText {
  const subject = commit.subject === undefined ? commit.commit.slice(0, 12) : visibleText(commit.subject);
  return {
    key: commit.commit,
    label: subject,
    description: `${formatBytes(commit.disk)} on disk · ${formatCount(commit.blobs)} new blob${commit.blobs === 1 ? '' : 's'} · ${commit.date}`,
    tooltip: `${commit.commit}\n${commit.date}\nadded ${formatCount(commit.blobs)} blob${commit.blobs === 1 ? '' : 's'}: ${formatCount(commit.disk)} bytes on disk, ${formatCount(commit.inflated)} inflated`,
  };
}

const parentOf = (directory: string): string => {
  const slash = directory.lastIndexOf('/');
  return slash < 0 ? '' : directory.slice(0, slash);
};

/**
 * The directories below the top level as a tree, each level in the document's order (most on-disk
 * bytes first). A directory's label is its last component with a slash; its tooltip, the whole path.
 */
export function directoryTree(document: Pick<SizesDocument, 'directories'>): DirectoryEntry[] {
  const below = new Map<string, SizesRow[]>();
  for (const row of document.directories) {
    if (row.path === '') continue;
    const parent = parentOf(row.path);
    let rows = below.get(parent);
    if (!rows) below.set(parent, (rows = []));
    rows.push(row);
  }
  const build = (parent: string): { children: DirectoryEntry[]; more: number } => {
    const rows = below.get(parent) ?? [];
    return {
      children: rows.slice(0, MAX_DIRECTORY_CHILDREN).map((row) => {
        const name = visibleText(row.path);
        return {
          key: row.path,
          label: `${visibleText(parent === '' ? row.path : row.path.slice(parent.length + 1))}/`,
          description: sizesDescription(row),
          tooltip: tooltipOf(`${name}/`, row),
          ...build(row.path),
        };
      }),
      more: Math.max(0, rows.length - MAX_DIRECTORY_CHILDREN),
    };
  };
  return build('').children;
}

/** The node's own one-line description once loaded: `4.6 MiB on disk over 8,463 commits`. */
export function sizesSummary(document: SizesDocument): string {
  return `${formatBytes(document.total.disk)} on disk · ${formatBytes(document.total.inflated)} inflated · ${formatCount(document.history.commits)} commits`;
}

/** How a blob is stored, for a row's description: `depth 3` (a delta 3 links from its whole base), `whole`, `loose`. */
export function blobStorageText(blob: PathBlob): string {
  if (blob.stored === 'missing') return 'missing (no pack or loose file has it)';
  if (blob.stored === 'loose') return 'loose';
  return blob.depth === 0 ? 'whole (depth 0)' : `depth ${blob.depth}`;
}

/** A blob at a path: its short id and the date it first came, its sizes and delta depth, its commit in the tooltip. */
export function pathBlobText(blob: PathBlob): SizesRowText {
  return {
    key: blob.oid,
    label: `${blob.oid.slice(0, 10)} · ${blob.date}`,
    description: `${formatBytes(blob.disk)} on disk · ${formatBytes(blob.inflated)} inflated · ${blobStorageText(blob)}`,
    tooltip: [
      `blob ${blob.oid}`,
      `on disk: ${formatCount(blob.disk)} bytes · inflated: ${formatCount(blob.inflated)} bytes`,
      blobStorageText(blob),
      `first in commit ${blob.commit} (${blob.date})`,
      'Click to open the object and its delta chain.',
    ].join('\n'),
  };
}

/** The line under a path's blobs when some are not listed: `… 1,234 more blobs (50 of 1,284 listed)`. */
export function moreBlobsText(listed: number, total: number): string {
  return `… ${formatCount(total - listed)} more blob${total - listed === 1 ? '' : 's'} (${formatCount(listed)} of ${formatCount(total)} listed, newest first)`;
}
