/**
 * How exact the libgit2 object-cache policies are against real libgit2 (Debian's python3-pygit2,
 * test/support/pygit2-read.py), on a real repository: three read lists, each replayed by
 * `packscope simulate --reads` (libgit2-objcache:scaled, and :lookup) and read by pygit2 through
 * git_object_lookup (`repo[id]`) and git_odb_read (`repo.odb.read`) with an LD_PRELOAD count of
 * inflateInit_ (test/support/inflate-counter.ts), at each object-cache cap:
 *
 * - every object of `git rev-list --objects --all`, once (blobs never enter the object cache);
 * - its commits and trees, twice (the object cache's own workload);
 * - the reads of `git log --raw -n 5000` recorded at core.deltaBaseCacheLimit=0, as `<pack> <offset>`.
 *
 * Also printed: what one store per read (the git_odb_read model) predicts for git_object_lookup,
 * which is what the model did before it stored the raw and then the parsed object.
 *
 *   node --import tsx bench/libgit2-exactness.bench.ts --repo DIR [--caps 64k,1m,8m,20m,256m]
 *
 * Not part of `npm run bench` (pygit2 reads the whole history some thirty times: minutes). It
 * writes nothing in DIR: read lists, traces and counts go to a temporary directory.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { parseGitSize } from '../src/common/git-size.ts';
import { buildInflateCounter, countingEnv, readInflateCount } from '../test/support/inflate-counter.ts';
import { benchModelCacheRoot, projectRoot } from './generate.ts';

const { values } = parseArgs({ options: { repo: { type: 'string' }, caps: { type: 'string' } } });
if (!values.repo) throw new Error('--repo DIR is required (a repository to read; never written to)');
const caps = (values.caps ?? '64k,1m,8m,20m,256m').split(',').map((text) => {
  const bytes = parseGitSize(text);
  if (bytes === undefined) throw new Error(`--caps: "${text}" is not a size`);
  return { text, bytes };
});
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'packscope-libgit2-exactness-'));
const cli = path.join(projectRoot, 'dist', 'cli.js');
const reader = path.join(projectRoot, 'test', 'support', 'pygit2-read.py');
const shim = buildInflateCounter(work);

function run(
  command: string,
  args: string[],
  options: { input?: string | Buffer; env?: NodeJS.ProcessEnv } = {},
): string {
  const result = spawnSync(command, args, { encoding: 'utf8', maxBuffer: 1 << 30, ...options });
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')}: ${result.stderr}`);
  return result.stdout;
}

const gitDir = path.resolve(values.repo, run('git', ['-C', values.repo, 'rev-parse', '--git-common-dir']).trim());
const objectsDir = path.join(gitDir, 'objects');
const packs = fs.readdirSync(path.join(objectsDir, 'pack')).filter((name) => name.endsWith('.idx'));
if (packs.length !== 1) throw new Error(`${objectsDir}/pack holds ${packs.length} packs; the bench reads one`);
const idx = path.join(objectsDir, 'pack', packs[0]!);
const idOfOffset = new Map<number, string>();
for (const line of run('git', ['show-index'], { input: fs.readFileSync(idx) }).split('\n')) {
  const [offset, id] = line.split(' ');
  if (id !== undefined) idOfOffset.set(Number(offset), id);
}

// The three read lists, as files for `simulate --reads` and as ids for pygit2.
const all = run('git', ['--git-dir', gitDir, 'rev-list', '--objects', '--all'])
  .split('\n')
  .filter(Boolean)
  .map((line) => line.slice(0, line.indexOf(' ') < 0 ? line.length : line.indexOf(' ')));
const types = run('git', ['--git-dir', gitDir, 'cat-file', '--batch-check=%(objecttype)'], {
  input: all.join('\n') + '\n',
}).split('\n');
const nonBlobs = all.filter((_, i) => types[i] !== 'blob');
const trace = path.join(work, 'log-raw.trace');
run('git', ['--git-dir', gitDir, '-c', 'core.deltaBaseCacheLimit=0', 'log', '--raw', '-n', '5000'], {
  env: { ...process.env, GIT_TRACE_PACK_ACCESS: trace, GIT_TRACE_BARE: '1' },
});
const traceLines = fs.readFileSync(trace, 'utf8').split('\n').filter(Boolean);
const lists: { name: string; file: string; ids: string[] }[] = [
  { name: 'rev-list --objects --all', file: path.join(work, 'all.txt'), ids: all },
  { name: 'commits and trees, twice', file: path.join(work, 'non-blobs.txt'), ids: [...nonBlobs, ...nonBlobs] },
  {
    name: 'log --raw -n 5000 (limit 0)',
    file: trace,
    ids: traceLines.map((line) => idOfOffset.get(Number(line.slice(line.lastIndexOf(' ') + 1)))!),
  },
];
for (const list of lists.slice(0, 2)) fs.writeFileSync(list.file, list.ids.join('\n') + '\n');

function real(ids: string[], cap: number, call: 'lookup' | 'repo-odb'): number {
  const counts = path.join(work, 'count');
  const read = (input: string): void => {
    run('/usr/bin/python3', [reader, objectsDir, String(cap), call], {
      input,
      env: { ...process.env, ...countingEnv(shim, counts) },
    });
  };
  read('');
  const baseline = readInflateCount(counts);
  read(ids.join('\n') + '\n');
  return readInflateCount(counts) - 2 * baseline;
}

function predicted(file: string, policy: string, cap: number): number {
  const args = ['simulate', '--json', '--policy', policy, '--limit', String(cap), '-C', gitDir, '--reads', file];
  const env = {
    ...process.env,
    PACKSCOPE_NO_PROGRESS: '1',
    PACKSCOPE_CACHE_DIR: path.join(benchModelCacheRoot, 'libgit2'),
  };
  return (JSON.parse(run(process.execPath, [cli, ...args], { env })) as { results: { inflations: number }[] })
    .results[0]!.inflations;
}

process.stdout.write(
  '| read list | cap | git_object_lookup: real | predicted | one store per read | git_odb_read: real | predicted |\n|---|---|---|---|---|---|---|\n',
);
let cells = 0;
let exact = 0;
for (const list of lists)
  for (const cap of caps) {
    const lookup = predicted(list.file, 'libgit2-objcache:scaled:lookup', cap.bytes);
    const odbRead = predicted(list.file, 'libgit2-objcache:scaled', cap.bytes);
    const realLookup = real(list.ids, cap.bytes, 'lookup');
    const realOdbRead = real(list.ids, cap.bytes, 'repo-odb');
    cells += 2;
    exact += Number(realLookup === lookup) + Number(realOdbRead === odbRead);
    const n = (value: number): string => value.toLocaleString('en-US');
    process.stdout.write(
      `| ${list.name} | ${cap.text} | ${n(realLookup)} | ${n(lookup)} | ${n(odbRead)} | ${n(realOdbRead)} | ${n(odbRead)} |\n`,
    );
  }
process.stdout.write(`\n${exact} of ${cells} cells exact\n`);
fs.rmSync(work, { recursive: true, force: true });
process.exitCode = exact === cells ? 0 : 1;
