import { after, before, describe, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { discoverRepository } from '../../src/core/model/repository.ts';
import { gitSupports, gitVersionOf } from '../../src/core/git/git-probe.ts';
import { parseProgressLine, GitStderrParser, type GitProgress } from '../../src/core/git/git-progress.ts';
import { previewRepack, TEMP_PREFIX } from '../../src/core/repack/preview-pack.ts';
import { computeWriteOrder } from '../../src/core/repack/write-order.ts';
import { directorySnapshot, gitEnv, GitSandbox, projectRoot, tempDir } from '../support/git.ts';
import { historyOnRef, historyRepository, parseVerifyPack } from '../support/git-oracle.ts';

/**
 * A repack preview equals a real `git repack -adf --threads=1` with the same --depth and
 * --window on a copy of the repository (objects, depth histogram, pack size, even the pack's
 * checksum), and leaves the repository byte for byte as it was — also when cancelled or when git
 * fails — with no temporary directory and no child process left behind.
 */

interface Shape {
  name: string;
  repo: string;
}

/** What a real repack of a copy gives: the new pack's verify-pack entries, its size and its name. */
function realRepack(
  sandbox: GitSandbox,
  repo: string,
  options: string[],
): { objects: number; histogram: number[]; deltas: number; packBytes: number; checksum: string } {
  const copy = `${repo}-copy-${process.hrtime.bigint()}`;
  spawnSync('cp', ['-a', repo, copy]);
  try {
    sandbox.git(copy, ['repack', '-adf', '-q', ...options]);
    const packDir = path.join(copy, '.git', 'objects', 'pack');
    const packs = fs.readdirSync(packDir).filter((name) => name.endsWith('.pack'));
    assert.equal(packs.length, 1, `one pack after git repack -ad: ${packs.join(', ')}`);
    const pack = path.join(packDir, packs[0]!);
    const entries = parseVerifyPack(sandbox.gitText(copy, ['verify-pack', '-v', pack]));
    const histogram: number[] = [0];
    for (const e of entries) {
      while (histogram.length <= e.depth) histogram.push(0);
      histogram[e.depth]!++;
    }
    return {
      objects: entries.length,
      histogram,
      deltas: entries.length - histogram[0]!,
      packBytes: fs.statSync(pack).size,
      checksum: /pack-([0-9a-f]+)\.pack$/.exec(pack)![1]!,
    };
  } finally {
    fs.rmSync(copy, { recursive: true, force: true });
  }
}

/** Child processes of this process (from /proc): a cancelled preview must leave none. */
function childProcesses(): string[] {
  const found: string[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(fields[1]) === process.pid)
        found.push(`${entry} ${stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'))}`);
    } catch {
      // gone meanwhile
    }
  }
  return found;
}

function previewTemps(root: string): string[] {
  return fs.readdirSync(root).filter((name) => name.startsWith(TEMP_PREFIX));
}

describe('repack-preview against git repack -adf on a copy', () => {
  let sandbox: GitSandbox;
  let shapes: Shape[];
  const savedHome = { HOME: process.env.HOME, XDG_CONFIG_HOME: process.env.XDG_CONFIG_HOME };

  before(() => {
    sandbox = new GitSandbox(tempDir(undefined, 'packscope-repack-test-'));
    process.on('exit', () => fs.rmSync(sandbox.root, { recursive: true, force: true }));
    // The preview runs git with the inherited environment (minus GIT_*): the same user config as the oracle.
    process.env.HOME = sandbox.home;
    process.env.XDG_CONFIG_HOME = path.join(sandbox.home, '.config');
    const plain = historyRepository(sandbox, 'plain', { commits: 220, seed: 5, repack: ['-ad'] });
    const loose = historyRepository(sandbox, 'loose', { commits: 120, seed: 8, repack: ['-ad'] });
    sandbox.git(loose, ['reset', '-q', '--hard', 'main']);
    for (let i = 0; i < 3; i++) {
      fs.appendFileSync(path.join(loose, `loose-${i}.txt`), `a loose object ${i}\n`.repeat(50 + i));
      sandbox.git(loose, ['add', '.']);
      sandbox.git(loose, ['commit', '-q', '-m', `loose ${i}`]);
    }
    const twoPacks = historyRepository(sandbox, 'two-packs', { commits: 100, seed: 9, repack: ['-ad'] });
    sandbox.fastImport(twoPacks, historyOnRef({ commits: 80, seed: 10 }, 'side', 'side-'));
    shapes = [
      { name: 'one pack', repo: plain },
      { name: 'a pack and loose objects', repo: loose },
      { name: 'two packs', repo: twoPacks },
    ];
    assert.ok(
      fs.readdirSync(path.join(twoPacks, '.git', 'objects', 'pack')).filter((n) => n.endsWith('.pack')).length === 2,
    );
  });

  after(() => {
    for (const [key, value] of Object.entries(savedHome)) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
  });

  for (const [depth, window] of [
    [50, 10],
    [10, 250],
  ] as const) {
    test(`objects, depth histogram, pack size and checksum equal git's (--depth=${depth} --window=${window}); the repository is untouched`, async (t) => {
      for (const shape of shapes) {
        const tempRoot = tempDir(t, 'packscope-repack-tmp-');
        const before = directorySnapshot(path.join(shape.repo, '.git'));
        const progress: GitProgress[] = [];
        const run = await previewRepack({
          repository: discoverRepository(shape.repo),
          depth,
          window,
          threads: 1,
          tempRoot,
          onProgress: (p) => progress.push(p),
        });
        assert.deepEqual(directorySnapshot(path.join(shape.repo, '.git')), before, `${shape.name}: .git unchanged`);
        assert.deepEqual(previewTemps(tempRoot), [], `${shape.name}: temporary directory removed`);
        const real = realRepack(sandbox, shape.repo, [`--depth=${depth}`, `--window=${window}`, '--threads=1']);
        const { preview, current } = run.result;
        assert.equal(preview.objects, real.objects, `${shape.name}: objects`);
        assert.deepEqual(preview.depthHistogram, real.histogram, `${shape.name}: depth histogram`);
        assert.equal(preview.deltas, real.deltas, `${shape.name}: deltas`);
        assert.equal(preview.maxDepth, real.histogram.length - 1, `${shape.name}: max depth`);
        assert.equal(preview.packBytes, real.packBytes, `${shape.name}: pack size`);
        assert.equal(preview.packs[0]!.checksum, real.checksum, `${shape.name}: the very same pack`);
        const phases = new Set(progress.map((p) => p.phase));
        for (const phase of ['Counting objects', 'Compressing objects', 'Writing objects'])
          assert.ok(phases.has(phase), `${shape.name}: progress of ${phase}`);
        const writing = progress.filter((p) => p.phase === 'Writing objects').at(-1)!;
        assert.equal(writing.total, real.objects);
        const currentPacks = fs
          .readdirSync(path.join(shape.repo, '.git', 'objects', 'pack'))
          .filter((n) => n.endsWith('.pack'));
        assert.equal(current.packs.length, currentPacks.length);
        assert.equal(
          current.packBytes,
          currentPacks.reduce(
            (sum, n) => sum + fs.statSync(path.join(shape.repo, '.git', 'objects', 'pack', n)).size,
            0,
          ),
        );
        if (shape.name.includes('loose')) {
          assert.ok(current.looseObjects >= 9, `${shape.name}: loose objects counted (${current.looseObjects})`);
          assert.ok(run.result.onlyInPreview >= 9, `${shape.name}: loose objects end up in the preview`);
        }
        assert.ok(run.result.largestChanges.length <= 20);
        for (const change of run.result.largestChanges) assert.notEqual(change.change, 0);
        const argv = run.result.gitArgs;
        assert.deepEqual(argv.slice(2, 9), [
          'pack-objects',
          `--window=${window}`,
          `--depth=${depth}`,
          '--threads=1',
          '--no-reuse-delta',
          '--progress',
          '--delta-base-offset',
        ]);
        assert.deepEqual(argv.slice(10), [
          '--keep-true-parents',
          '--honor-pack-keep',
          '--non-empty',
          '--all',
          '--reflog',
          '--indexed-objects',
        ]);
      }
    });
  }

  test('cancelled midway: AbortError, child gone, no temporary directory, repository untouched', async (t) => {
    const shape = shapes[0]!;
    const tempRoot = tempDir(t, 'packscope-repack-tmp-');
    const before = directorySnapshot(path.join(shape.repo, '.git'));
    const controller = new AbortController();
    let pid: number | undefined;
    let progressSeen = 0;
    let tempSeenWhileRunning = false;
    let aliveAtAbort = false;
    const started = performance.now();
    await assert.rejects(
      previewRepack({
        repository: discoverRepository(shape.repo),
        depth: 250,
        window: 250,
        threads: 1,
        tempRoot,
        signal: controller.signal,
        onSpawn: (p) => (pid = p),
        onProgress: (p) => {
          if (!p.phase.endsWith('objects')) return;
          progressSeen++;
          if (progressSeen === 1) {
            tempSeenWhileRunning = previewTemps(tempRoot).length === 1;
            try {
              process.kill(pid!, 0);
              aliveAtAbort = true;
            } catch {
              aliveAtAbort = false;
            }
            controller.abort();
          }
        },
      }),
      (error: Error) => error.name === 'AbortError',
    );
    const seconds = (performance.now() - started) / 1000;
    assert.ok(pid !== undefined, 'pack-objects was started');
    assert.ok(tempSeenWhileRunning, 'the temporary directory existed while git ran');
    assert.ok(aliveAtAbort, 'pack-objects was still running when the signal fired');
    assert.throws(() => process.kill(pid!, 0), /ESRCH/, 'the pack-objects process is gone');
    assert.deepEqual(
      childProcesses().filter((c) => / git$/.test(c)),
      [],
    );
    assert.deepEqual(previewTemps(tempRoot), []);
    assert.deepEqual(directorySnapshot(path.join(shape.repo, '.git')), before);
    // Uncancelled, this run takes about 3 s on the project's machine (2 cores): the cancel stopped git midway.
    assert.ok(seconds < 5, `cancelled after ${seconds.toFixed(2)} s`);
  });

  test('an already aborted signal starts nothing', async (t) => {
    const tempRoot = tempDir(t, 'packscope-repack-tmp-');
    const controller = new AbortController();
    controller.abort();
    let spawned = false;
    await assert.rejects(
      previewRepack({
        repository: discoverRepository(shapes[0]!.repo),
        tempRoot,
        signal: controller.signal,
        onSpawn: () => (spawned = true),
      }),
      { name: 'AbortError' },
    );
    assert.equal(spawned, false);
    assert.deepEqual(previewTemps(tempRoot), []);
  });

  test("git failing: one error with git's own message, nothing left behind", async (t) => {
    const shape = shapes[0]!;
    const tempRoot = tempDir(t, 'packscope-repack-tmp-');
    const before = directorySnapshot(path.join(shape.repo, '.git'));
    await assert.rejects(
      previewRepack({ repository: discoverRepository(shape.repo), tempRoot, extraOptions: ['--no-such-option'] }),
      (error: Error) => {
        assert.match(
          error.message,
          /git pack-objects failed \(exit status 129\): error: unknown option `no-such-option'/,
        );
        return true;
      },
    );
    await assert.rejects(
      previewRepack({
        repository: discoverRepository(shape.repo),
        tempRoot,
        git: path.join(sandbox.root, 'no-such-git'),
      }),
      /cannot run git .*no-such-git/,
    );
    assert.deepEqual(previewTemps(tempRoot), []);
    assert.deepEqual(directorySnapshot(path.join(shape.repo, '.git')), before);
  });

  test('option support is probed from git pack-objects -h', async () => {
    const [major, minor] = (await gitVersionOf('git')).split('.').map(Number) as [number, number];
    assert.equal(await gitSupports('git', 'window'), true);
    assert.equal(await gitSupports('git', '--no-reuse-delta'), true);
    assert.equal(await gitSupports('git', 'delta-base-offset'), true);
    assert.equal(await gitSupports('git', 'definitely-not-an-option'), false);
    // --name-hash-version came with git 2.49.0, --path-walk with 2.51.0 (their release notes).
    if (major === 2 && minor < 49) assert.equal(await gitSupports('git', 'name-hash-version'), false);
    if (major === 2 && minor < 51) assert.equal(await gitSupports('git', 'path-walk'), false);
  });

  test('--json: schema, sides, argv, recordings and the estimate, against git', (t) => {
    const shape = shapes[0]!;
    const tempRoot = tempDir(t, 'packscope-repack-tmp-');
    const cacheDir = path.join(tempRoot, 'models');
    const env = {
      ...gitEnv(sandbox.home),
      PACKSCOPE_NO_PROGRESS: '1',
      PACKSCOPE_CACHE_DIR: cacheDir,
      TMPDIR: tempRoot,
    };
    const cli = (args: string[]): ReturnType<typeof spawnSync> =>
      spawnSync(process.execPath, ['--import', 'tsx', path.join(projectRoot, 'src', 'cli', 'main.ts'), ...args], {
        cwd: projectRoot,
        env,
        maxBuffer: 1 << 28,
      });
    const recording = path.join(tempRoot, 'log.psrec');
    const recorded = cli(['record', '-o', recording, '-C', shape.repo, '--', 'log', '--raw', '-n', '120']);
    assert.equal(recorded.status, 0, String(recorded.stderr));
    const before = directorySnapshot(path.join(shape.repo, '.git'));
    const tuning = ['--depth', '20', '--window', '30', '--threads', '1'];
    const result = cli(['repack-preview', '--json', ...tuning, '--recording', recording, shape.repo]);
    assert.equal(result.status, 0, String(result.stderr));
    assert.deepEqual(directorySnapshot(path.join(shape.repo, '.git')), before);
    assert.deepEqual(previewTemps(tempRoot), []);
    const doc = JSON.parse(String(result.stdout));
    assert.equal(doc.schema, 'packscope.repack-preview/1');
    const real = realRepack(sandbox, shape.repo, ['--depth=20', '--window=30', '--threads=1']);
    for (const side of ['current', 'preview']) {
      for (const field of [
        'objects',
        'packBytes',
        'deltas',
        'maxDepth',
        'meanDepth',
        'depthHistogram',
        'families',
        'byType',
        'packs',
      ])
        assert.ok(field in doc[side], `${side}.${field}`);
    }
    assert.equal(doc.preview.objects, real.objects);
    assert.deepEqual(doc.preview.depthHistogram, real.histogram);
    assert.equal(doc.preview.packBytes, real.packBytes);
    assert.equal(doc.preview.deltas, real.deltas);
    const depthSum = real.histogram.reduce((sum, n, d) => sum + n * d, 0);
    assert.equal(doc.preview.meanDepth, Math.round((depthSum / real.objects) * 1000) / 1000);
    const currentPack = path.join(
      shape.repo,
      '.git',
      'objects',
      'pack',
      fs.readdirSync(path.join(shape.repo, '.git', 'objects', 'pack')).find((n) => n.endsWith('.pack'))!,
    );
    const currentEntries = parseVerifyPack(sandbox.gitText(shape.repo, ['verify-pack', '-v', currentPack]));
    assert.equal(doc.current.objects, currentEntries.length);
    assert.equal(doc.current.maxDepth, Math.max(...currentEntries.map((e) => e.depth)));
    assert.equal(doc.current.packBytes, fs.statSync(currentPack).size);
    assert.equal(doc.git[0], 'git');
    assert.ok(
      doc.git.includes('pack-objects') && doc.git.includes('--no-reuse-delta') && doc.git.includes('--depth=20'),
    );
    assert.equal(typeof doc.seconds, 'number');
    assert.deepEqual(doc.equivalent, ['git', 'repack', '-a', '-d', '-f', '--depth=20', '--window=30', '--threads=1']);

    assert.equal(doc.recordings.length, 1);
    const rec = doc.recordings[0];
    assert.ok(rec.reads > 0);
    assert.equal(rec.readsNotInPreview, 0);
    assert.deepEqual(
      rec.current.inflations.map((x: { limit: number }) => x.limit),
      [16 << 20, 96 << 20],
    );
    assert.equal(rec.preview.locality[0].reads, rec.reads);
    // The current side is what `packscope simulate` says of the same recording.
    const simulated = cli(['simulate', '--json', '--limit', '96m', recording]);
    assert.equal(simulated.status, 0, String(simulated.stderr));
    assert.equal(rec.current.inflations[1].inflations, JSON.parse(String(simulated.stdout)).results[0].inflations);

    // The estimate: the objects rev-list walks, and the §5 model exact once given the real deltas.
    const walked = sandbox
      .gitText(shape.repo, ['rev-list', '--objects', '--all', '--reflog', '--indexed-objects'])
      .split('\n')
      .filter(Boolean).length;
    assert.equal(doc.estimate.estimate.kind, 'estimate');
    assert.equal(doc.estimate.estimate.objects, walked);
    assert.equal(doc.estimate.accuracy.objects.preview, real.objects);
    assert.equal(doc.estimate.accuracy.modelWithRealDeltas.objectsInPlace, 1);
    assert.ok(doc.estimate.accuracy.orderRankCorrelation > 0.5);
    assert.equal(doc.estimate.accuracy.recordings.length, 1);

    // Each listed change is named as git rev-list --objects --all names it (null for a commit, which
    // rev-list lists without a name).
    const names = new Map(
      sandbox
        .gitText(shape.repo, ['rev-list', '--objects', '--all'])
        .split('\n')
        .filter(Boolean)
        .map((line) => [line.slice(0, 40), line.length > 41 ? line.slice(41) : null] as const),
    );
    assert.ok(doc.largestChanges.length > 0);
    assert.ok(doc.largestChanges.some((c: { path: string | null }) => c.path !== null));
    for (const change of doc.largestChanges as { oid: string; path: string | null }[])
      assert.equal(change.path, names.get(change.oid) ?? null, change.oid);
    const text = cli(['repack-preview', '--no-estimate', ...tuning, shape.repo]);
    assert.equal(text.status, 0, String(text.stderr));
    const named = doc.largestChanges.find((c: { path: string | null }) => c.path !== null);
    assert.match(
      String(text.stdout),
      new RegExp(`${named.oid} +${named.path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} `),
    );
    const unnamed = cli(['repack-preview', '--json', '--no-paths', '--no-estimate', '--threads', '1', shape.repo]);
    assert.equal(unnamed.status, 0, String(unnamed.stderr));
    for (const change of JSON.parse(String(unnamed.stdout)).largestChanges) assert.equal('path' in change, false);
  });

  test('--estimate-only runs no pack-objects; --help names the options', (t) => {
    const shape = shapes[1]!;
    const tempRoot = tempDir(t, 'packscope-repack-tmp-');
    const env = {
      ...gitEnv(sandbox.home),
      PACKSCOPE_NO_PROGRESS: '1',
      PACKSCOPE_CACHE_DIR: path.join(tempRoot, 'models'),
      TMPDIR: tempRoot,
    };
    const cli = (args: string[]): ReturnType<typeof spawnSync> =>
      spawnSync(process.execPath, ['--import', 'tsx', path.join(projectRoot, 'src', 'cli', 'main.ts'), ...args], {
        cwd: projectRoot,
        env,
      });
    const result = cli(['repack-preview', '--json', '--estimate-only', shape.repo]);
    assert.equal(result.status, 0, String(result.stderr));
    const doc = JSON.parse(String(result.stdout));
    assert.equal(doc.preview, null);
    assert.equal(doc.git, null);
    assert.equal(doc.estimate.accuracy, null);
    assert.ok(doc.estimate.estimate.unpackedObjects >= 9);
    const help = cli(['repack-preview', '--help']);
    assert.equal(help.status, 0);
    for (const option of ['--depth', '--window', '--threads', '--recording', '--estimate-only', '--json'])
      assert.ok(String(help.stdout).includes(option));
    const failing = cli(['repack-preview', shape.repo, '--', '--no-such-option']);
    assert.equal(failing.status, 1);
    assert.match(
      String(failing.stderr),
      /^packscope: git pack-objects failed \(exit status 129\): error: unknown option `no-such-option'\n$/,
    );
  });
});

describe('pure parts', () => {
  test("git's progress lines, split anywhere", () => {
    assert.deepEqual(parseProgressLine('Compressing objects:  45% (9/20)'), {
      phase: 'Compressing objects',
      done: 9,
      total: 20,
      finished: false,
    });
    assert.deepEqual(parseProgressLine('Enumerating objects: 1234, done.'), {
      phase: 'Enumerating objects',
      done: 1234,
      total: undefined,
      finished: true,
    });
    assert.deepEqual(parseProgressLine('Writing objects: 100% (20/20), 1.20 MiB | 3.00 MiB/s, done.'), {
      phase: 'Writing objects',
      done: 20,
      total: 20,
      finished: true,
    });
    assert.equal(parseProgressLine('Delta compression using up to 2 threads'), undefined);
    const text =
      'Counting objects:  50% (1/2)\rCounting objects: 100% (2/2)\rCounting objects: 100% (2/2), done.\nfatal: out of memory\n';
    for (let cut = 0; cut < text.length; cut++) {
      const seen: GitProgress[] = [];
      const parser = new GitStderrParser((p) => seen.push(p));
      parser.push(text.slice(0, cut));
      parser.push(text.slice(cut));
      parser.end();
      assert.equal(seen.length, 3, `cut at ${cut}`);
      assert.deepEqual(parser.otherLines, ['fatal: out of memory']);
    }
  });

  test('§5.2 write order: tagged tips, commits, trees, then families; bases pulled ahead of deltas', () => {
    // 0 commit, 1 commit (tagged), 2 tree, 3 tree (delta of 2), 4 blob, 5 blob (delta of 6), 6 blob, 7 blob (delta of 5)
    const type = Uint8Array.from([1, 1, 2, 2, 3, 3, 3, 3]);
    const base = Int32Array.from([-1, -1, -1, 2, -1, 6, -1, 5]);
    const tagged = Uint8Array.from([0, 1, 0, 0, 0, 0, 0, 0]);
    assert.deepEqual([...computeWriteOrder(8, type, base, tagged)], [0, 1, 2, 3, 4, 6, 5, 7]);
    // A tree delta whose base comes later in input order: the base is written first.
    assert.deepEqual(
      [...computeWriteOrder(3, Uint8Array.from([2, 2, 3]), Int32Array.from([1, -1, -1]), new Uint8Array(3))],
      [1, 0, 2],
    );
  });
});
