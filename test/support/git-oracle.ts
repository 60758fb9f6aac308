/**
 * What real git says about a repository or a pack, for the "exact against git" tests: git runs
 * whose failure is part of the expectation, the cat-file batch-check listing, `git verify-pack -v`
 * parsed into records, and repositories built from deterministic histories.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { BATCH_CHECK_FORMAT, type GitSandbox, gitEnv, runCli } from './git.ts';
import { historyStream, type HistoryOptions } from './history.ts';

export interface ProcessResult {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** Runs git in the sandbox's isolated environment without throwing: the status is part of the result. */
export function runGit(sandbox: GitSandbox, cwd: string, args: string[], input?: string | Buffer): ProcessResult {
  const result = spawnSync('git', args, { cwd, env: gitEnv(sandbox.home), input, maxBuffer: 1 << 30 });
  if (result.error) throw result.error;
  return { status: result.status, stdout: result.stdout.toString('utf8'), stderr: result.stderr.toString('utf8') };
}

/** Runs dist/cli.js with its model cache in `cacheDir` (never ~/.cache). */
export function packscope(args: string[], cwd: string, cacheDir: string): ProcessResult {
  const result = runCli(args, { cwd, env: { PACKSCOPE_CACHE_DIR: cacheDir } });
  return { status: result.status, stdout: result.stdout.toString('utf8'), stderr: result.stderr };
}

/** `git cat-file --batch-all-objects --batch-check=<BATCH_CHECK_FORMAT>`, run in `cwd`. */
export function catFileBatchCheck(sandbox: GitSandbox, cwd: string, config: string[] = []): string {
  return sandbox.gitText(cwd, [
    ...config.flatMap((c) => ['-c', c]),
    'cat-file',
    '--batch-all-objects',
    `--batch-check=${BATCH_CHECK_FORMAT}`,
  ]);
}

/** A history stream written to another branch and tag namespace, so several can share one repository. */
export function historyOnRef(options: HistoryOptions, branch: string, tagPrefix: string): Buffer {
  // latin1 maps every byte to one code unit, so binary file contents survive the round trip. The
  // replaced texts are fast-import commands; the generated contents never contain them.
  const text = historyStream(options)
    .toString('latin1')
    .replaceAll('commit refs/heads/main\n', `commit refs/heads/${branch}\n`)
    .replace(/^tag v/gm, `tag ${tagPrefix}v`);
  return Buffer.from(text, 'latin1');
}

/** A new repository at sandbox.root/name holding `historyStream(options)`, repacked with `repack` when given. */
export function historyRepository(
  sandbox: GitSandbox,
  name: string,
  options: HistoryOptions & { objectFormat?: 'sha1' | 'sha256'; repack?: string[] },
): string {
  const repo = sandbox.init(name, options.objectFormat ? { objectFormat: options.objectFormat } : {});
  sandbox.fastImport(repo, historyStream(options));
  if (options.repack) sandbox.git(repo, ['repack', '-q', ...options.repack]);
  return repo;
}

/** One object line of `git verify-pack -v`. */
export interface VerifyPackEntry {
  oid: string;
  type: string;
  /** The size in the object's pack header: the delta size for deltas. */
  size: number;
  diskSize: number;
  offset: number;
  depth: number;
  base: string | undefined;
}

/** The object lines of `git verify-pack -v` output, in pack order. */
export function parseVerifyPack(stdout: string): VerifyPackEntry[] {
  const entries: VerifyPackEntry[] = [];
  for (const line of stdout.split('\n')) {
    const match = /^([0-9a-f]{40}|[0-9a-f]{64}) (\S+) +(\d+) (\d+) (\d+)(?: (\d+) ([0-9a-f]+))?$/.exec(line);
    if (!match) continue;
    entries.push({
      oid: match[1]!,
      type: match[2]!,
      size: Number(match[3]),
      diskSize: Number(match[4]),
      offset: Number(match[5]),
      depth: match[6] === undefined ? 0 : Number(match[6]),
      base: match[7],
    });
  }
  return entries;
}

/** The verify-pack entry (entries in pack order) whose bytes hold `offset`. */
export function entryHolding(entries: VerifyPackEntry[], offset: number): VerifyPackEntry {
  let low = 0;
  let high = entries.length - 1;
  while (low < high) {
    const middle = (low + high + 1) >>> 1;
    if (entries[middle]!.offset <= offset) low = middle;
    else high = middle - 1;
  }
  return entries[low]!;
}

/** `git verify-pack -v <pack>` (which must succeed), parsed. */
export function verifyPackEntries(sandbox: GitSandbox, cwd: string, pack: string): VerifyPackEntry[] {
  return parseVerifyPack(sandbox.gitText(cwd, ['verify-pack', '-v', pack]));
}

/** The type code in an object's first header byte (§6.1): 1..4 whole objects, 6 OFS_DELTA, 7 REF_DELTA. */
export function inPackTypeCode(packBytes: Buffer, offset: number): number {
  return (packBytes[offset]! >> 4) & 7;
}

/** The single pack stem (path without extension) of a pack directory; fails if there is not exactly one. */
export function onlyPackStem(packDir: string): string {
  const packs = fs.readdirSync(packDir).filter((name) => name.endsWith('.pack'));
  if (packs.length !== 1) throw new Error(`expected one pack in ${packDir}, found ${packs.join(', ') || 'none'}`);
  return path.join(packDir, packs[0]!.slice(0, -5));
}

/** Sets the mtime git sorts packs by (the .pack file's, `add_packed_git`) and that of its companions. */
export function setPackMtime(stem: string, seconds: number): void {
  for (const ext of ['.pack', '.idx', '.rev']) {
    if (fs.existsSync(stem + ext)) fs.utimesSync(stem + ext, seconds, seconds);
  }
}

/** The "pack\t<hash>" or "<hash>" line index-pack prints, as the hash. */
export function packHashFromIndexPack(stdout: string): string {
  const match = /^(?:pack\t|keep\t)?([0-9a-f]{40,64})$/m.exec(stdout.trim());
  if (!match) throw new Error(`index-pack printed no pack hash: ${stdout}`);
  return match[1]!;
}

/**
 * A short fast-import stream of edge cases for a branch of its own: the empty blob, a 192 KiB blob
 * edited in place (its delta copies whole 64 KiB runs, encoded as size 0), a tag of a blob and a tag
 * of that tag; with `emptyTree`, also a commit of the empty tree (deleteall).
 */
export function edgeCaseStream(branch: string, options: { emptyTree: boolean }): Buffer {
  const chunks: Buffer[] = [];
  const emit = (text: string): void => void chunks.push(Buffer.from(text, 'utf8'));
  const data = (content: Buffer): void => {
    emit(`data ${content.length}\n`);
    chunks.push(content);
    emit('\n');
  };
  const big = Buffer.alloc(192 * 1024);
  let x = 12345;
  for (let i = 0; i < big.length; i++) {
    x = (x * 1103515245 + 12345) >>> 0;
    big[i] = x >>> 24;
  }
  const edited = Buffer.from(big);
  for (const at of [100, 70000, 150000]) edited[at] = edited[at]! ^ 0xff;
  const commit = (mark: number, when: number, body: () => void): void => {
    emit(`commit refs/heads/${branch}\nmark :${mark}\ncommitter C O Mitter <committer@example.com> ${when} +0000\n`);
    data(Buffer.from(`edge ${mark}\n`));
    body();
    emit('\n');
  };
  emit(`blob\nmark :100\n`);
  data(Buffer.alloc(0));
  commit(101, 1800000000, () => {
    emit('M 100644 :100 empty.txt\nM 100644 inline big.bin\n');
    data(big);
  });
  commit(102, 1800000060, () => {
    emit('from :101\nM 100644 inline big.bin\n');
    data(edited);
  });
  if (options.emptyTree) commit(103, 1800000120, () => emit('from :102\ndeleteall\n'));
  emit('tag edge-blob-tag\nmark :104\nfrom :100\ntagger C O Mitter <committer@example.com> 1800000180 +0000\n');
  data(Buffer.from('a tag of the empty blob\n'));
  emit('tag edge-tag-of-tag\nfrom :104\ntagger C O Mitter <committer@example.com> 1800000240 +0000\n');
  data(Buffer.from('a tag of a tag\n'));
  emit('done\n');
  return Buffer.concat(chunks);
}
