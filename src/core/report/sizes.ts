import type { SizesCommit, SizesDocument, SizesRow } from '../documents/sizes-document.ts';
import { readSubject } from '../model/commit-subject.ts';
import type { ObjectStore } from '../model/object-store.ts';
import type { HistorySizes, SizeRow } from './history-sizes.ts';

export { historySizes, SIZES_COUNTS, type HistorySizes, type SizesCount } from './history-sizes.ts';

const utf8 = (bytes: string): string => Buffer.from(bytes, 'latin1').toString('utf8');

const row = (r: SizeRow): SizesRow => ({
  path: utf8(r.name),
  inflated: r.inflated,
  disk: r.disk,
  deleted: r.deleted ?? null,
});

/** `packscope sizes --json`: the history's sizes, with the `top` commits that added the most on-disk bytes. */
export function sizesDocument(store: ObjectStore, sizes: HistorySizes, top: number): SizesDocument {
  return {
    schema: 'packscope.sizes/1',
    repository: { gitDir: store.repository.gitDir, objectFormat: store.repository.hash.name },
    count: sizes.count,
    history: { commits: sizes.commits, blobs: sizes.blobs, missingBlobs: sizes.missingBlobs.length },
    total: sizes.total,
    paths: sizes.paths.map(row),
    directories: sizes.directories.map(row),
    extensions: sizes.extensions.map(row),
    commits: sizes.commitsAdding.slice(0, top).map((c): SizesCommit => {
      const subject = subjectOf(store, c.oid);
      return {
        commit: c.oid,
        date: c.date,
        ...(subject === undefined ? {} : { subject }),
        blobs: c.blobs,
        inflated: c.inflated,
        disk: c.disk,
      };
    }),
  };
}

function subjectOf(store: ObjectStore, oid: string): string | undefined {
  const found = store.locate(oid);
  return found ? readSubject(found.model, found.object) : undefined;
}

/** The report files of `git filter-repo --analyze` that PackScope writes byte for byte, by name. */
export const FILTER_REPO_FILES = [
  'path-all-sizes.txt',
  'path-deleted-sizes.txt',
  'directories-all-sizes.txt',
  'directories-deleted-sizes.txt',
  'extensions-all-sizes.txt',
  'extensions-deleted-sizes.txt',
] as const;

/**
 * Those files' contents as filter-repo writes them: a title, a format line, then one line per row,
 * `  %10d %10d %-10s %s` (unpacked, packed, date or `<present>`, the name's own bytes unquoted).
 * Only the per-path count is filter-repo's, so only its sizes make these files.
 */
export function filterRepoReport(sizes: HistorySizes): Map<(typeof FILTER_REPO_FILES)[number], Buffer> {
  const file = (title: string, what: string, rows: SizeRow[], emptyName: string): Buffer => {
    const lines = [`=== ${title} ===\n`, `Format: unpacked size, packed size, date deleted, ${what}\n`];
    for (const r of rows)
      lines.push(
        `  ${String(r.inflated).padStart(10)} ${String(r.disk).padStart(10)} ${(r.deleted ?? '<present>').padEnd(10)} ${r.name || emptyName}\n`,
      );
    return Buffer.from(lines.join(''), 'latin1');
  };
  const deleted = (rows: SizeRow[]): SizeRow[] => rows.filter((r) => r.deleted !== undefined);
  return new Map([
    ['path-all-sizes.txt', file('All paths by reverse accumulated size', 'path name', sizes.paths, '')],
    [
      'path-deleted-sizes.txt',
      file('Deleted paths by reverse accumulated size', 'path name(s)', deleted(sizes.paths), ''),
    ],
    [
      'directories-all-sizes.txt',
      file('All directories by reverse size', 'directory name', sizes.directories, '<toplevel>'),
    ],
    [
      'directories-deleted-sizes.txt',
      file('Deleted directories by reverse size', 'directory name', deleted(sizes.directories), '<toplevel>'),
    ],
    [
      'extensions-all-sizes.txt',
      file('All extensions by reverse size', 'extension name', sizes.extensions, '<no extension>'),
    ],
    [
      'extensions-deleted-sizes.txt',
      file('Deleted extensions by reverse size', 'extension name', deleted(sizes.extensions), '<no extension>'),
    ],
  ]);
}
