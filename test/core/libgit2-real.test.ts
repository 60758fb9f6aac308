// The libgit2 policies against a real libgit2: Debian's python3-pygit2 reads a git recording's
// objects in recorded order with Odb.read, and an LD_PRELOAD shim counts its zlib inflateInit
// calls; the counts must equal the model's predicted inflations (git-internals §4, §8.2).
import { test, type TestContext } from 'node:test';
import * as assert from 'node:assert/strict';
import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { buildPackModel, packFilesFor } from '../../src/core/model/build-pack-model.ts';
import type { PackModel } from '../../src/core/model/pack-model.ts';
import { parsePolicy } from '../../src/core/sim/policy-registry.ts';
import {
  replayLibgit2Reads,
  LIBGIT2_PACK_CACHE_LIMIT,
  type Libgit2Counts,
} from '../../src/core/sim/policies/libgit2.ts';
import { simObjectsFrom, type SimObjects } from '../../src/core/sim/sim-objects.ts';
import { cliPath, GitSandbox, packStems, projectRoot, tempDir } from '../support/git.ts';
import { historyStream } from '../support/history.ts';
import { buildInflateCounter, countingEnv, readInflateCount } from '../support/inflate-counter.ts';
import { SeededRandom } from '../support/seeded-random.ts';

/** Debian's interpreter: python3-pygit2 installs into its dist-packages, not into another python3 on PATH. */
const PYTHON = '/usr/bin/python3';
const READER = path.join(projectRoot, 'test', 'support', 'pygit2-read.py');
const MIB = 1024 * 1024;

/** Why the real-libgit2 tests cannot run here, or undefined when they can. */
function pygit2Unavailable(): string | undefined {
  const probe = spawnSync(PYTHON, ['-c', 'import pygit2; print(pygit2.LIBGIT2_VERSION)'], { encoding: 'utf8' });
  if (probe.error !== undefined)
    return `${PYTHON} cannot run (${probe.error.message}); python3-pygit2 (a real libgit2) is needed: node scripts/ensure-test-tools.mjs installs it`;
  if (probe.status !== 0)
    return `python3-pygit2 is not importable by ${PYTHON} (${probe.stderr.trim().split('\n').at(-1)}); node scripts/ensure-test-tools.mjs installs it`;
  return undefined;
}

interface Subject {
  sandbox: GitSandbox;
  repo: string;
  objectsDir: string;
  model: PackModel;
  objects: SimObjects;
  shim: string;
}

function subjectOf(t: TestContext, fill: (sandbox: GitSandbox, repo: string) => void): Subject | undefined {
  const unavailable = pygit2Unavailable();
  if (unavailable !== undefined) assert.fail(unavailable);
  const sandbox = new GitSandbox(tempDir(t, 'packscope-libgit2-'));
  const repo = sandbox.init('repo', { bare: true });
  fill(sandbox, repo);
  // One pack, no loose objects: libgit2 then reads every object through git_packfile_unpack.
  sandbox.git(repo, ['repack', '-adfq', '--depth=50', '--window=10']);
  const stems = packStems(path.join(repo, 'objects'));
  assert.equal(stems.length, 1);
  const model = buildPackModel(packFilesFor(`${stems[0]!}.pack`));
  return {
    sandbox,
    repo,
    objectsDir: path.join(repo, 'objects'),
    model,
    objects: simObjectsFrom([model]),
    shim: buildInflateCounter(sandbox.root),
  };
}

/** A recording the way `packscope record --exact` makes one: the git command at limit 0, its reads in trace order (ids). */
function recordReads(subject: Subject, args: string[]): Int32Array {
  const trace = path.join(subject.sandbox.root, `trace-${process.hrtime.bigint()}`);
  subject.sandbox.git(subject.repo, ['-c', 'core.deltaBaseCacheLimit=0', ...args], {
    env: { GIT_TRACE_PACK_ACCESS: trace, GIT_TRACE_BARE: '1' },
  });
  const lines = fs.readFileSync(trace, 'utf8').split('\n').filter(Boolean);
  return Int32Array.from(lines, (line) => {
    const id = subject.model.objectAt(Number(line.slice(line.lastIndexOf(' ') + 1)));
    assert.ok(id >= 0, `trace line "${line}" names an object of the pack`);
    return id;
  });
}

/**
 * How pygit2 reads each object (pygit2-read.py): `odb` Odb(objects).read and `repo-odb`
 * Repository.odb.read are git_odb_read, `lookup` Repository[id] is git_object_lookup.
 */
type ReadCall = 'odb' | 'repo-odb' | 'lookup';

/**
 * pygit2's reads of `reads` in order through `call` (default Odb.read) with the object cache `off`
 * or at `cache` bytes: its inflateInit count.
 */
function libgit2Inflations(subject: Subject, reads: Int32Array, cache: 'off' | number, call: ReadCall = 'odb'): number {
  const counts = path.join(subject.sandbox.root, `count-${process.hrtime.bigint()}`);
  const run = (ids: Int32Array): string => {
    const result = spawnSync(PYTHON, [READER, subject.objectsDir, String(cache), call], {
      input: Array.from(ids, (id) => subject.model.oidHex(id)).join('\n') + '\n',
      env: { ...process.env, ...countingEnv(subject.shim, counts) },
      encoding: 'utf8',
      maxBuffer: 1 << 26,
    });
    assert.equal(result.status, 0, result.stderr);
    return result.stdout;
  };
  // Whatever the interpreter inflates by itself (nothing, as measured, but it is not assumed).
  run(new Int32Array(0));
  const baseline = readInflateCount(counts);
  const printed = run(reads);
  assert.equal(printed.split(' ')[0], String(reads.length), 'every object was read');
  return readInflateCount(counts) - 2 * baseline;
}

function predicted(subject: Subject, spec: string, reads: Int32Array, limit: number): Libgit2Counts {
  return parsePolicy(spec).run(subject.objects, reads, limit) as Libgit2Counts;
}

/** Lines of words: text that git deltas well when a few lines change. */
function wordText(random: SeededRandom, bytes: number): string[] {
  const words = [
    'pack',
    'delta',
    'chain',
    'base',
    'cache',
    'inflate',
    'object',
    'tree',
    'blob',
    'commit',
    'offset',
    'window',
  ];
  const lines: string[] = [];
  for (let length = 0; length < bytes;) {
    const line = Array.from({ length: 6 + random.int(6) }, () => random.pick(words)).join(' ') + ` ${random.int(1e9)}`;
    lines.push(line);
    length += line.length + 1;
  }
  return lines;
}

/**
 * 18 files of ~980 KB and one of ~1.2 MB, two versions each: reading them caches more than 16 MiB
 * of bases of at most 1 MiB, so libgit2's pack cache flushes (§4.2), and the 1.2 MB base is never cached.
 */
function bigBlobHistory(sandbox: GitSandbox, repo: string): void {
  const random = new SeededRandom(13);
  const files = Array.from({ length: 19 }, (_, k) => ({
    name: `big/file-${k}.txt`,
    lines: wordText(random, k === 18 ? 1200 * 1024 : 980 * 1024),
  }));
  const chunks: Buffer[] = [];
  for (let c = 0; c < 2; c++) {
    chunks.push(
      Buffer.from(
        `commit refs/heads/main\nmark :${c + 1}\ncommitter C O Mitter <c@example.com> ${1700000000 + c * 60} +0000\ndata 10\nversion ${c}\n\n${c > 0 ? `from :${c}\n` : ''}`,
      ),
    );
    for (const file of files) {
      if (c > 0)
        for (let e = 0; e < 3; e++)
          file.lines.splice(random.int(file.lines.length), 1, `edit ${c}.${e} ${random.int(1e9)}`);
      const content = Buffer.from(file.lines.join('\n') + '\n');
      chunks.push(Buffer.from(`M 100644 inline ${file.name}\ndata ${content.length}\n`), content, Buffer.from('\n'));
    }
    chunks.push(Buffer.from('\n'));
  }
  chunks.push(Buffer.from('done\n'));
  sandbox.fastImport(repo, Buffer.concat(chunks));
}

/**
 * `commits` commits, each changing one file four directories deep (4 × 4 × 4 × 4 places), so
 * each adds a commit and five small trees: many small objects the object cache admits (§4.1).
 */
function deepTreeHistory(commits: number): (sandbox: GitSandbox, repo: string) => void {
  return (sandbox, repo) => {
    const random = new SeededRandom(29);
    const chunks: string[] = [];
    for (let c = 0; c < commits; c++) {
      const place = Array.from({ length: 4 }, () => `d${random.int(4)}`).join('/');
      const content = `${c} ${random.int(1e9)}\n`;
      chunks.push(
        `commit refs/heads/main\nmark :${c + 1}\ncommitter C O Mitter <c@example.com> ${1700000000 + c} +0000\ndata 3\nc${c % 10}\n${c > 0 ? `from :${c}\n` : ''}M 100644 inline ${place}/f.txt\ndata ${content.length}\n${content}\n`,
      );
    }
    chunks.push('done\n');
    sandbox.fastImport(repo, Buffer.from(chunks.join('')));
  };
}

test('libgit2 pack cache against real libgit2: the object cache off is the pack-cache model at its 16m (flushes, bases over 1 MiB)', (t) => {
  const subject = subjectOf(t, bigBlobHistory);
  if (subject === undefined) return;
  const reads = recordReads(subject, ['log', '-p', '--format=%H']);
  const model = predicted(subject, 'libgit2-pack-whatif', reads, LIBGIT2_PACK_CACHE_LIMIT);
  // The recording exercises what the rules are about, or the equality below would say little.
  assert.ok(model.flushes > 0, `the 16m pack cache flushes (${model.flushes})`);
  assert.ok(model.basesNotCached > 0, `a base over 1 MiB is used uncached (${model.basesNotCached})`);
  assert.notEqual(
    predicted(subject, 'libgit2-pack-whatif', reads, 1 << 30).inflations,
    model.inflations,
    'a larger pack cache would inflate less: the flushes matter',
  );
  assert.equal(libgit2Inflations(subject, reads, 'off'), model.inflations);
  // Blobs never enter the object cache (§4.1), so libgit2 as shipped inflates as much here, at every limit.
  const shipped = predicted(subject, 'libgit2', reads, 0);
  assert.equal(predicted(subject, 'libgit2:as-shipped', reads, 96 * MIB).inflations, shipped.inflations);
  assert.equal(libgit2Inflations(subject, reads, 256 * MIB), shipped.inflations);
});

test('libgit2 object cache against real libgit2: off, 4k, 16k, 64k, 1m and 256m (as shipped) over git log --raw and log -p', (t) => {
  const subject = subjectOf(t, (sandbox, repo) =>
    sandbox.fastImport(repo, historyStream({ commits: 300, seed: 11, files: 40 })),
  );
  if (subject === undefined) return;
  const recordings: [string, Int32Array][] = [
    ['log --raw -r', recordReads(subject, ['log', '--raw', '-r', '--format=%H'])],
    ['log -p', recordReads(subject, ['log', '-p', '--format=%H'])],
  ];
  for (const [command, reads] of recordings) {
    const off = predicted(subject, 'libgit2-pack-whatif', reads, LIBGIT2_PACK_CACHE_LIMIT);
    assert.equal(libgit2Inflations(subject, reads, 'off'), off.inflations, `${command}, object cache off`);
    for (const size of [4096, 16384, 65536, MIB]) {
      const on = predicted(subject, 'libgit2-objcache:scaled', reads, size);
      assert.ok(on.objectCache!.hits > 0, `${command} at ${size}: the object cache serves reads`);
      if (size < MIB) assert.ok(on.objectCache!.evictionRuns > 0, `${command} at ${size}: the object cache evicts`);
      assert.equal(libgit2Inflations(subject, reads, size), on.inflations, `${command}, object cache at ${size}`);
    }
    const shipped = predicted(subject, 'libgit2', reads, 0);
    assert.ok(shipped.inflations < off.inflations, `${command}: the shipped object cache saves inflations`);
    assert.equal(libgit2Inflations(subject, reads, 256 * MIB), shipped.inflations, `${command}, as shipped`);
  }
});

test('libgit2 object cache eviction is max(8, n/2048), not 8: told apart on a cache of over 16,384 entries', (t) => {
  // 4,000 commits and their 20,000 trees, read twice: at 2.5m the cache holds more than 2048 × 8
  // entries when it first evicts, so the scaled rule removes more than 8 buckets per run (§4.1, §8.2).
  const subject = subjectOf(t, deepTreeHistory(4000));
  if (subject === undefined) return;
  const once = recordReads(subject, ['rev-list', '--objects', '--all']);
  const reads = Int32Array.from([...once, ...once]);
  const size = 2.5 * MIB;
  const scaled = predicted(subject, 'libgit2-objcache:scaled', reads, size);
  const evict8 = predicted(subject, 'libgit2-objcache:evict8', reads, size);
  assert.ok(scaled.objectCache!.evictionRuns > 0);
  assert.notEqual(scaled.inflations, evict8.inflations, 'the two rules predict different counts here');
  assert.equal(libgit2Inflations(subject, reads, size), scaled.inflations);
  // The same replay without the registry, to pin what the registry's row stands for.
  assert.equal(
    replayLibgit2Reads(subject.objects, reads, {
      limit: LIBGIT2_PACK_CACHE_LIMIT,
      objectCache: { eviction: 'scaled', maxStorage: size },
    }).inflations,
    scaled.inflations,
  );
});

/**
 * `commits` commits of a 2.5 KB message, each changing one of 60 files in one directory (a tree
 * of about 3.7 KB) and one of 16 files in a second one: commits and trees just under the object
 * cache's 4 KiB admission limit (§4.1), so that caps of 8m and 20m fill and evict.
 */
function wideTreeHistory(commits: number): (sandbox: GitSandbox, repo: string) => void {
  return (sandbox, repo) => {
    const random = new SeededRandom(41);
    const message = wordText(random, 2500).join('\n');
    const chunks: string[] = [];
    for (let c = 0; c < commits; c++) {
      const wide = `wide/file-with-a-longer-name-${random.int(60)}.txt`;
      const narrow = `narrow/n-${random.int(16)}.txt`;
      const files =
        c === 0 ? Array.from({ length: 60 }, (_, k) => `wide/file-with-a-longer-name-${k}.txt`) : [wide, narrow];
      const text = `commit ${c}\n${message.slice(0, 2400 + random.int(100))}\n`;
      chunks.push(
        `commit refs/heads/main\nmark :${c + 1}\ncommitter C O Mitter <c@example.com> ${1700000000 + c} +0000\ndata ${Buffer.byteLength(text)}\n${text}\n${c > 0 ? `from :${c}\n` : ''}`,
      );
      for (const file of files) {
        const content = `${file} ${c} ${random.int(1e9)}\n`;
        chunks.push(`M 100644 inline ${file}\ndata ${content.length}\n${content}\n`);
      }
      chunks.push('\n');
    }
    chunks.push('done\n');
    sandbox.fastImport(repo, Buffer.from(chunks.join('')));
  };
}

/** Reads no git command made: `count` reads of the pack's objects, a seeded mix of repeats and jumps. */
function syntheticReads(subject: Subject, count: number, seed: number): Int32Array {
  const random = new SeededRandom(seed);
  const total = subject.objects.count;
  const reads = new Int32Array(count);
  let at = random.int(total);
  for (let r = 0; r < count; r++) {
    // Mostly near the last read (a walk), sometimes anywhere (a jump), sometimes a recent read again.
    const roll = random.int(10);
    if (roll < 6) at = (at + 1 + random.int(8)) % total;
    else if (roll < 8) at = random.int(total);
    else if (r > 0) at = reads[Math.max(0, r - 1 - random.int(Math.min(r, 200)))]!;
    reads[r] = at;
  }
  return reads;
}

test('libgit2 object cache through git_object_lookup and git_odb_read against real libgit2: caps 64k to 256m on three read lists', (t) => {
  const subject = subjectOf(t, wideTreeHistory(4000));
  if (subject === undefined) return;
  const walk = recordReads(subject, ['rev-list', '--objects', '--all']);
  const lists: [string, Int32Array][] = [
    ['rev-list --objects --all, twice', Int32Array.from([...walk, ...walk])],
    ['log --raw -r', recordReads(subject, ['log', '--raw', '-r', '--format=%H'])],
    ['synthetic reads', syntheticReads(subject, 40000, 7)],
  ];
  // Cells where one store per read (git_odb_read's) would mispredict git_object_lookup: the cause.
  let twoStoresMatter = 0;
  for (const [list, reads] of lists)
    for (const size of [64 * 1024, MIB, 8 * MIB, 20 * MIB, 256 * MIB]) {
      const lookup = predicted(subject, 'libgit2-objcache:scaled:lookup', reads, size);
      const odbRead = predicted(subject, 'libgit2-objcache:scaled', reads, size);
      const realLookup = libgit2Inflations(subject, reads, size, 'lookup');
      const realOdbRead = libgit2Inflations(subject, reads, size, 'repo-odb');
      t.diagnostic(
        `${list} at ${size}: lookup real ${realLookup} predicted ${lookup.inflations} (runs ${lookup.objectCache!.evictionRuns}); odb real ${realOdbRead} predicted ${odbRead.inflations}`,
      );
      assert.equal(realLookup, lookup.inflations, `${list}, git_object_lookup, object cache at ${size}`);
      assert.equal(realOdbRead, odbRead.inflations, `${list}, git_odb_read, object cache at ${size}`);
      if (lookup.inflations !== odbRead.inflations) twoStoresMatter++;
      if (size === 20 * MIB && list !== 'synthetic reads')
        assert.ok(lookup.objectCache!.evictionRuns > 0, `${list} at 20m: the object cache evicts`);
    }
  assert.ok(
    twoStoresMatter > 0,
    'somewhere git_object_lookup and git_odb_read differ, or the test would not tell them apart',
  );

  // The synthetic reads as a read list for `packscope simulate --reads`: object ids and `<pack>
  // <offset>` lines mixed, a comment and a blank line; the CLI's counts equal real libgit2's.
  const synthetic = lists[2]![1];
  const pack = `${packStems(subject.objectsDir)[0]!}.pack`;
  const readList = path.join(subject.sandbox.root, 'reads.txt');
  const lines = Array.from(synthetic, (id, r) =>
    r % 3 === 0 ? `${pack} ${subject.objects.offset[id]!}` : subject.model.oidHex(id),
  );
  fs.writeFileSync(readList, `# reads no git command made\n\n${lines.join('\n')}\n`);
  const cells: [string, number, ReadCall][] = [
    ['libgit2-objcache:scaled:lookup', 64 * 1024, 'lookup'],
    ['libgit2-objcache:scaled', MIB, 'repo-odb'],
  ];
  for (const [spec, size, call] of cells) {
    const args: string[] = [
      'simulate',
      '--json',
      '--policy',
      spec,
      '--limit',
      String(size),
      '-C',
      subject.repo,
      '--reads',
      readList,
    ];
    const cli: SpawnSyncReturns<string> = spawnSync(process.execPath, [cliPath, ...args], {
      env: {
        ...process.env,
        PACKSCOPE_NO_PROGRESS: '1',
        PACKSCOPE_CACHE_DIR: path.join(subject.sandbox.root, 'cache'),
      },
      encoding: 'utf8',
      maxBuffer: 1 << 28,
    });
    assert.equal(cli.status, 0, cli.stderr);
    const document = JSON.parse(cli.stdout) as {
      recording: { mode: string };
      results: { reads: number; inflations: number; exact: boolean }[];
    };
    const cell = document.results[0]!;
    assert.equal(document.recording.mode, 'read-list');
    assert.equal(cell.reads, synthetic.length);
    assert.equal(cell.exact, true, 'a read list hides no read');
    assert.equal(
      cell.inflations,
      libgit2Inflations(subject, synthetic, size, call),
      `simulate --reads ${spec} at ${size}`,
    );
  }
});
