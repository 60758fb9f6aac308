/**
 * `packscope map --recording` through alternates: a recording made (by `packscope record`, real
 * git) in a `git clone --shared` of a repository reads the origin's pack file through the clone's
 * alternates. Those reads are the pack's reads, as the editor's Pack Map counts them (the
 * recording is opened in the repository it was recorded in): the map of the origin's pack counts
 * every GIT_TRACE_PACK_ACCESS line that names that file, over the objects at those offsets. A
 * recording of another repository whose packs are not this one still lights nothing of it.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import { GitSandbox, gitEnv, runCli, tempDir } from '../support/git.ts';
import { historyRepository, onlyPackStem } from '../support/git-oracle.ts';

let root: string;
let sandbox: GitSandbox;
let origin: string;
let clone: string;
let stem: string;

before(() => {
  root = tempDir(undefined, 'packscope-map-alternates-');
  sandbox = new GitSandbox(root);
  origin = historyRepository(sandbox, 'origin', { commits: 30, seed: 4, files: 4, repack: ['-adf'] });
  stem = onlyPackStem(path.join(origin, '.git', 'objects', 'pack'));
  clone = path.join(root, 'shared');
  sandbox.git(root, ['clone', '-q', '--shared', '--no-checkout', origin, clone]);
  assert.equal(
    fs.readFileSync(path.join(clone, '.git', 'objects', 'info', 'alternates'), 'utf8').trim(),
    path.join(origin, '.git', 'objects'),
  );
  assert.deepEqual(fs.readdirSync(path.join(clone, '.git', 'objects', 'pack')), [], 'the clone has no pack of its own');
});

after(() => fs.rmSync(root, { recursive: true, force: true }));

const cli = (args: string[]): ReturnType<typeof runCli> =>
  runCli(args, {
    cwd: root,
    env: { ...(gitEnv(sandbox.home) as Record<string, string>), PACKSCOPE_CACHE_DIR: path.join(root, 'cache') },
  });

/** The trace lines of a recording that read `pack`: their offsets, in order. */
function tracedOffsets(recording: string, pack: string): number[] {
  const offsets: number[] = [];
  for (const line of fs.readFileSync(recording, 'utf8').split('\n')) {
    const match = /packfile\.c:\d+\s+(\S+) (\d+)$/.exec(line);
    if (match && match[1] === pack) offsets.push(Number(match[2]));
  }
  return offsets;
}

interface MapJson {
  pack: string;
  recording: { file: string; reads: number; distinctObjects: number; litPixels: number };
}

test("a --shared clone's recording is counted as the reads of the origin's pack it read through alternates", () => {
  const recording = path.join(root, 'shared-log.recording');
  const recorded = cli(['record', '-o', recording, '-C', clone, '--', 'log', '-p']);
  assert.equal(recorded.status, 0, recorded.stderr);
  const offsets = tracedOffsets(recording, `${stem}.pack`);
  assert.ok(offsets.length > 50, `git read the origin's pack ${offsets.length} times through the alternates`);

  const output = path.join(root, 'out', 'origin.png');
  const map = cli(['map', '--recording', recording, '--json', '-o', output, origin]);
  assert.equal(map.status, 0, map.stderr);
  assert.equal(map.stderr, '', 'nothing left out');
  const document = JSON.parse(map.stdout.toString('utf8')) as MapJson;
  assert.equal(document.pack, `${stem}.pack`);
  assert.equal(document.recording.reads, offsets.length);
  assert.equal(document.recording.distinctObjects, new Set(offsets).size);
  assert.ok(document.recording.litPixels > 0);

  // Drawn from the clone (whose only pack is the origin's, through alternates): the same reads.
  const fromClone = cli(['map', '--recording', recording, '--json', '-o', path.join(root, 'out', 'clone.png'), clone]);
  assert.equal(fromClone.status, 0, fromClone.stderr);
  assert.deepEqual((JSON.parse(fromClone.stdout.toString('utf8')) as MapJson).recording.reads, offsets.length);
});

test('a recording of an unrelated repository reads nothing of this pack, and says so', () => {
  const other = historyRepository(sandbox, 'other', { commits: 5, seed: 9, files: 2, repack: ['-adf'] });
  const recording = path.join(root, 'other.recording');
  assert.equal(cli(['record', '-o', recording, '-C', other, '--', 'log', '-p']).status, 0);
  const map = cli(['map', '--recording', recording, '--json', '-o', path.join(root, 'out', 'other.png'), origin]);
  assert.equal(map.status, 1);
  assert.equal(map.stderr, `packscope: ${recording}: the recording reads nothing from ${path.basename(stem)}.pack\n`);
});
