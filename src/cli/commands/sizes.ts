import * as fs from 'node:fs';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { visibleText } from '../../common/visible-text.ts';
import { makeDirectories, writeAll, writeFileAtomically } from '../../core/atomic-file.ts';
import type { SizesDocument, SizesRow } from '../../core/documents/sizes-document.ts';
import { fail } from '../../core/errors.ts';
import { refuseInsideAnyRepository } from '../../core/model/outside-repository.ts';
import {
  FILTER_REPO_FILES,
  filterRepoReport,
  historySizes,
  SIZES_COUNTS,
  sizesDocument,
  type HistorySizes,
  type SizesCount,
} from '../../core/report/sizes.ts';
import { formatBytes, formatCount, formatTable, writeJson } from '../output.ts';
import { openObjectStore } from '../open-target.ts';
import type { Progress } from '../progress.ts';
import { cacheOptions, cacheOptionSpec } from './cache-options.ts';
import type { Command } from '../command.ts';

const sizesHelp = `usage: packscope sizes [--json] [--top N] [--count per-path|per-blob]
                       [--filter-repo-report DIR [--force]] [--git PATH] [--no-cache | --cache-dir DIR] [path]

Where the bytes of the history of the repository at [path] (default: the current directory) go:
per path, per directory and per extension, the inflated ("unpacked") and on-disk ("packed") bytes
of every blob that was ever there, and the date each was deleted (or <present>); then the commits
that added the most on-disk bytes. By the rules of \`git filter-repo --analyze\`, whose report files
it can write byte for byte: a blob counts once at each path it was at, a rename makes the old and
new names one file, and a path is deleted when the last commit (in \`rev-list --topo-order\`) that
names it deletes it. The history is read with git (\`rev-list --all\` and \`diff-tree -M\`, which
only read); the sizes come from the packs (and loose files).

--top N            rows of each table, and commits listed (default 10; --json lists every path,
                   directory and extension, and N commits)
--count per-blob   count each blob once in the whole history, at the first path it was at (the
                   totals are then what the blobs weigh); the default, per-path, is filter-repo's
--filter-repo-report DIR
                   also write filter-repo's path-, directories- and extensions- all- and
                   deleted-sizes.txt files into DIR (created; never inside a repository; existing
                   files are refused unless --force)
--git PATH         the git executable (default: git on PATH)

--json prints the "packscope.sizes/1" document described in docs/json.md.`;

async function runSizes(argv: string[], progress: Progress): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      json: { type: 'boolean' },
      top: { type: 'string' },
      count: { type: 'string' },
      'filter-repo-report': { type: 'string' },
      force: { type: 'boolean' },
      git: { type: 'string' },
      ...cacheOptionSpec,
    },
  });
  if (positionals.length > 1) throw fail('usage', undefined, undefined, 'sizes takes at most one path');
  const top = values.top === undefined ? 10 : Number(values.top);
  if (!Number.isInteger(top) || top < 0)
    throw fail('usage', undefined, undefined, '--top needs a non-negative integer');
  const count = (values.count ?? 'per-path') as SizesCount;
  if (!SIZES_COUNTS.includes(count))
    throw fail('usage', undefined, undefined, `--count is one of ${SIZES_COUNTS.join(', ')}`);
  const reportDir = values['filter-repo-report'];
  if (reportDir !== undefined && count !== 'per-path')
    throw fail('usage', undefined, undefined, "--filter-repo-report writes filter-repo's own count, per-path");
  const store = openObjectStore(positionals[0] ?? '.', cacheOptions(values), progress);
  if (store.singlePack)
    throw fail('usage', positionals[0], undefined, 'sizes reads a history: give a repository, not a pack file');
  const reportPath = reportDir === undefined ? undefined : path.resolve(reportDir);
  if (reportPath !== undefined) checkReportDirectory(reportPath, values.force === true);
  const sizes = await progress.trackAsync(
    'Reading the history',
    (onProgress) => historySizes(store, { git: values.git ?? 'git', count, onCommit: onProgress }),
    'commits',
  );
  if (sizes.missingBlobs.length > 0)
    process.stderr.write(
      `packscope: warning: ${formatCount(sizes.missingBlobs.length)} blobs of the history are in no pack and no loose file (counted as 0 bytes), e.g. ${sizes.missingBlobs[0]}\n`,
    );
  if (reportPath !== undefined) writeReport(reportPath, sizes, values.force === true);
  const document = sizesDocument(store, sizes, top);
  if (values.json) writeJson(document);
  else process.stdout.write(describe(document, top).join('\n') + '\n');
  return 0;
}

/** The report directory: outside every repository (PackScope never writes in one), its files new unless --force. */
function checkReportDirectory(directory: string, force: boolean): void {
  refuseInsideAnyRepository(
    directory,
    (root) => `is inside the repository ${root}; PackScope never writes inside a repository`,
  );
  for (const name of FILTER_REPO_FILES) {
    const file = path.join(directory, name);
    const stat = fs.lstatSync(file, { throwIfNoEntry: false });
    if (!stat) continue;
    if (!stat.isFile()) throw fail('usage', file, undefined, 'exists and is not a regular file');
    if (!force) throw fail('usage', file, undefined, 'exists; --force replaces it');
  }
}

function writeReport(directory: string, sizes: HistorySizes, force: boolean): void {
  makeDirectories(directory, 0o755);
  for (const [name, bytes] of filterRepoReport(sizes))
    writeFileAtomically(path.join(directory, name), 0o644, (fd) => writeAll(fd, bytes), { replace: force });
}

/** filter-repo's tables, readably: sizes in units, names with controls escaped, the top rows of each. */
function describe(document: SizesDocument, top: number): string[] {
  const { history, total } = document;
  const lines = [
    `${document.repository.gitDir}: ${formatCount(history.commits)} commits, ${formatCount(history.blobs)} blobs at ${formatCount(document.paths.length)} paths in ${formatCount(document.directories.length)} directories, ${formatCount(document.extensions.length)} extensions`,
    `  blobs counted ${document.count === 'per-path' ? "once per path (filter-repo's count)" : 'once in the history'}: ${formatBytes(total.inflated)} inflated, ${formatBytes(total.disk)} on disk`,
  ];
  const table = (title: string, rows: SizesRow[], empty: string): void => {
    lines.push('', `${title}${rows.length > top ? ` (${top} of ${formatCount(rows.length)})` : ''}:`);
    if (rows.length === 0) {
      lines.push('  none');
      return;
    }
    lines.push(
      ...formatTable([
        ['  on disk', 'inflated', 'deleted', 'name'],
        ...rows
          .slice(0, top)
          .map((r) => [
            `  ${formatBytes(r.disk)}`,
            formatBytes(r.inflated),
            r.deleted ?? '<present>',
            visibleText(r.path) || empty,
          ]),
      ]),
    );
  };
  const deleted = (rows: SizesRow[]): SizesRow[] => rows.filter((r) => r.deleted !== null);
  table('Paths', document.paths, '');
  table('Deleted paths', deleted(document.paths), '');
  table('Directories', document.directories, '<toplevel>');
  table('Deleted directories', deleted(document.directories), '<toplevel>');
  table('Extensions', document.extensions, '<no extension>');
  table('Deleted extensions', deleted(document.extensions), '<no extension>');
  lines.push('', 'Commits that added the most on-disk bytes:');
  lines.push(
    ...formatTable([
      ['  on disk', 'inflated', 'blobs', 'date', 'commit', 'subject'],
      ...document.commits.map((c) => [
        `  ${formatBytes(c.disk)}`,
        formatBytes(c.inflated),
        formatCount(c.blobs),
        c.date,
        c.commit,
        c.subject === undefined ? '' : JSON.stringify(c.subject),
      ]),
    ]),
  );
  return lines;
}

export const sizesCommand: Command = {
  name: 'sizes',
  summary: 'sizes [--json] [path]                     bytes by path, directory, extension, commit (filter-repo)',
  help: sizesHelp,
  run: (argv, { progress }) => runSizes(argv, progress),
};
