/**
 * Small real packs written by git, for the tests that damage them (bad-input, fuzz): an OFS-delta
 * pack with a .rev, the same objects as REF deltas, an idx v1, and an empty pack. Each lives in its
 * own directory as `<dir>/<name>.pack|.idx|.rev`; tests copy the bytes before changing them.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { GitSandbox, packStems } from './git.ts';
import { historyStream } from './history.ts';

export interface FixturePacks {
  /** `git repack -adf` with pack.writeReverseIndex: OFS deltas, idx v2, .rev. */
  ofs: string;
  /** `git pack-objects` without --delta-base-offset: REF deltas, idx v2, no .rev. */
  ref: string;
  /** The OFS pack indexed by `git index-pack --index-version=1`. */
  v1: string;
  /** A pack of no objects (valid). */
  empty: string;
  sandbox: GitSandbox;
  repo: string;
}

/** Builds the fixtures under `root`; returns the stems (paths without extension). */
export function buildFixturePacks(root: string, options: { commits?: number; seed?: number } = {}): FixturePacks {
  const sandbox = new GitSandbox(root);
  const repo = sandbox.init('source', { bare: true });
  sandbox.fastImport(
    repo,
    historyStream({ commits: options.commits ?? 60, seed: options.seed ?? 7, binaryRate: 0.15 }),
  );
  sandbox.git(repo, ['-c', 'pack.writeReverseIndex=true', 'repack', '-adfq']);
  const [stem] = packStems(path.join(repo, 'objects'));
  if (!stem || !fs.existsSync(`${stem}.rev`)) throw new Error('git repack wrote no pack with a .rev');

  const dir = path.join(root, 'fixtures');
  fs.mkdirSync(dir, { recursive: true });
  const ofs = path.join(dir, 'ofs');
  for (const ext of ['pack', 'idx', 'rev']) fs.copyFileSync(`${stem}.${ext}`, `${ofs}.${ext}`);

  const ref = path.join(dir, 'ref');
  fs.writeFileSync(
    `${ref}.pack`,
    sandbox.git(repo, ['pack-objects', '-q', '--all', '--revs', '--stdout'], { input: '' }),
  );
  sandbox.git(repo, ['index-pack', '-o', `${ref}.idx`, `${ref}.pack`]);

  const v1 = path.join(dir, 'v1');
  fs.copyFileSync(`${stem}.pack`, `${v1}.pack`);
  sandbox.git(repo, ['index-pack', '--index-version=1', '-o', `${v1}.idx`, `${v1}.pack`]);

  const empty = path.join(dir, 'empty');
  fs.writeFileSync(`${empty}.pack`, sandbox.git(repo, ['pack-objects', '-q', '--stdout'], { input: '' }));
  sandbox.git(repo, ['index-pack', '-o', `${empty}.idx`, `${empty}.pack`]);
  return { ofs, ref, v1, empty, sandbox, repo };
}

/** An OFS-delta pack with idx v2 and .rev from a SHA-256 repository (§6.5); returns its stem. */
export function buildSha256Pack(root: string, options: { commits?: number; seed?: number } = {}): string {
  const sandbox = new GitSandbox(root);
  const repo = sandbox.init('source-sha256', { bare: true, objectFormat: 'sha256' });
  sandbox.fastImport(
    repo,
    historyStream({ commits: options.commits ?? 20, seed: options.seed ?? 5, binaryRate: 0.15 }),
  );
  sandbox.git(repo, ['-c', 'pack.writeReverseIndex=true', 'repack', '-adfq']);
  const [stem] = packStems(path.join(repo, 'objects'));
  if (!stem || !fs.existsSync(`${stem}.rev`)) throw new Error('git repack wrote no SHA-256 pack with a .rev');
  const dir = path.join(root, 'fixtures');
  fs.mkdirSync(dir, { recursive: true });
  const copy = path.join(dir, 'sha256');
  for (const ext of ['pack', 'idx', 'rev']) fs.copyFileSync(`${stem}.${ext}`, `${copy}.${ext}`);
  return copy;
}

/**
 * A pack directory of three packs (from three unrelated histories) and the multi-pack-index git
 * writes for them (§6.4). Returns the directory and the ids of every object it covers.
 */
export function buildMidxPackDir(root: string): { packDir: string; oids: Buffer[] } {
  const sandbox = new GitSandbox(root);
  const repo = sandbox.init('midx', { bare: true });
  const packDir = path.join(repo, 'objects', 'pack');
  fs.mkdirSync(packDir, { recursive: true });
  for (const seed of [21, 22, 23]) {
    const part = sandbox.init(`midx-part-${seed}`, { bare: true });
    sandbox.fastImport(part, historyStream({ commits: 8, seed, binaryRate: 0 }));
    sandbox.git(part, ['repack', '-adq']);
    for (const stem of packStems(path.join(part, 'objects'))) {
      for (const ext of ['pack', 'idx'])
        fs.copyFileSync(`${stem}.${ext}`, path.join(packDir, `${path.basename(stem)}.${ext}`));
    }
  }
  sandbox.git(repo, ['multi-pack-index', 'write']);
  const oids: Buffer[] = [];
  for (const stem of packStems(path.join(repo, 'objects'))) {
    const idx = fs.readFileSync(`${stem}.idx`);
    const count = idx.readUInt32BE(8 + 255 * 4);
    for (let n = 0; n < count; n++) oids.push(Buffer.from(idx.subarray(8 + 1024 + n * 20, 8 + 1024 + (n + 1) * 20)));
  }
  return { packDir, oids };
}
