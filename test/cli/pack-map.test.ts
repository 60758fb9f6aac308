/**
 * `packscope map`. The geometry is checked on its own (the Hilbert curve visits every
 * cell once, each step to a neighbour); the picture against real git: every pixel decoded from the
 * PNG has the colour of the type git's `verify-pack -v` and `cat-file` give the object whose entry
 * holds the pixel's first byte, and a recording's lit pixels are exactly those over an object git's
 * GIT_TRACE_PACK_ACCESS lines name.
 */
import * as assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { hilbertIndex, hilbertPoint, TYPE_COLOURS } from '../../src/common/pack-map-geometry.ts';
import { cliPath, GitSandbox, projectRoot, runCli, tempDir } from '../support/git.ts';
import {
  historyRepository,
  onlyPackStem,
  verifyPackEntries,
  type VerifyPackEntry,
  entryHolding,
} from '../support/git-oracle.ts';
import { decodePng } from '../support/png-decode.ts';

const TYPE_NUMBER: Record<string, number> = { commit: 1, tree: 2, blob: 3, tag: 4 };

let root: string;
let sandbox: GitSandbox;
let repo: string;
let stem: string;
let entries: VerifyPackEntry[];
/** Each object's type after its chain (git cat-file -t), by oid. */
let typeOf: Map<string, string>;
let packBytes: number;

before(() => {
  root = tempDir(undefined, 'packscope-map-');
  sandbox = new GitSandbox(root);
  repo = historyRepository(sandbox, 'history', {
    commits: 60,
    seed: 15,
    files: 5,
    linesPerFile: 40,
    repack: ['-adf', '--depth=20'],
  });
  stem = onlyPackStem(path.join(repo, '.git', 'objects', 'pack'));
  entries = verifyPackEntries(sandbox, repo, `${stem}.pack`);
  const checked = sandbox.gitText(repo, [
    'cat-file',
    '--batch-all-objects',
    '--batch-check=%(objectname) %(objecttype)',
  ]);
  typeOf = new Map(
    checked
      .trim()
      .split('\n')
      .map((line) => line.split(' ') as [string, string]),
  );
  packBytes = fs.statSync(`${stem}.pack`).size;
});

after(() => {
  fs.rmSync(root, { recursive: true, force: true });
});

function entryAt(offset: number): VerifyPackEntry {
  return entryHolding(entries, offset);
}

/** The byte range [start, end) of the pixel at distance d, as the map's help defines it: equal shares of bytes 12 … size − 20. */
function pixelBytes(d: number, order: number): [number, number] {
  const span = packBytes - 20 - 12;
  return [12 + Math.floor((d * span) / 4 ** order), 12 + Math.floor(((d + 1) * span) / 4 ** order)];
}

describe('the Hilbert curve', () => {
  test('visits every cell once, each step to a neighbour, and hilbertIndex inverts hilbertPoint', () => {
    for (let order = 1; order <= 7; order++) {
      const side = 2 ** order;
      const seen = new Set<number>();
      let previous: [number, number] | undefined;
      for (let d = 0; d < side * side; d++) {
        const [x, y] = hilbertPoint(order, d);
        assert.ok(x >= 0 && y >= 0 && x < side && y < side, `order ${order}, d ${d}: (${x}, ${y})`);
        seen.add(y * side + x);
        assert.equal(hilbertIndex(order, x, y), d, `order ${order}: index of (${x}, ${y})`);
        if (previous)
          assert.equal(
            Math.abs(x - previous[0]) + Math.abs(y - previous[1]),
            1,
            `order ${order}: step ${d} is to a neighbour`,
          );
        previous = [x, y];
      }
      assert.equal(seen.size, side * side);
    }
  });
});

describe('packscope map', () => {
  test("every pixel has the colour of git's type for the object holding its first byte", () => {
    const output = path.join(root, 'out', 'types.png');
    const result = runCli(['map', '--json', '--size', '64', '-o', output, repo]);
    assert.equal(result.status, 0, result.stderr);
    const document = JSON.parse(result.stdout.toString());
    assert.equal(document.schema, 'packscope.map/1');
    assert.equal(document.objects, entries.length);
    assert.equal(document.packBytes, packBytes);
    const image = decodePng(output);
    assert.deepEqual([image.width, image.height], [64, 64]);
    const seenTypes = new Set<string>();
    for (let d = 0; d < 64 * 64; d++) {
      const [x, y] = hilbertPoint(6, d);
      const [start] = pixelBytes(d, 6);
      const entry = entryAt(start);
      const type = typeOf.get(entry.oid)!;
      seenTypes.add(type);
      assert.deepEqual(
        image.pixel(x, y),
        [...TYPE_COLOURS[TYPE_NUMBER[type]!]!],
        `pixel (${x}, ${y}) at byte ${start}: ${entry.oid} ${type}`,
      );
    }
    for (const type of ['blob', 'commit', 'tree']) assert.ok(seenTypes.has(type), `the picture shows ${type}s`);
  });

  test("a recording's lit pixels are those over objects git's trace names; the SVG carries the legend", () => {
    const trace = path.join(root, 'log.trace');
    sandbox.git(repo, ['-c', 'core.deltaBaseCacheLimit=0', 'log', '--raw', '-n', '20'], {
      env: { GIT_TRACE_PACK_ACCESS: trace },
    });
    const readOffsets = new Set(
      fs
        .readFileSync(trace, 'utf8')
        .trim()
        .split('\n')
        .map((line) => Number(/ (\d+)$/.exec(line)![1])),
    );
    const output = path.join(root, 'out', 'heat.svg');
    const result = runCli(['map', '--json', '--size', '128', '--recording', trace, '-o', output, repo]);
    assert.equal(result.status, 0, result.stderr);
    const document = JSON.parse(result.stdout.toString());
    assert.equal(document.recording.distinctObjects, readOffsets.size);
    assert.equal(document.recording.reads, fs.readFileSync(trace, 'utf8').trim().split('\n').length);
    const read = entries.filter((e) => readOffsets.has(e.offset));
    assert.equal(read.length, readOffsets.size, 'every traced offset is an object start');
    let expectedLit = 0;
    for (let d = 0; d < 128 * 128; d++) {
      const [start, end] = pixelBytes(d, 7);
      if (read.some((e) => e.offset < end && e.offset + e.diskSize > start)) expectedLit++;
    }
    assert.equal(document.recording.litPixels, expectedLit);
    const svg = fs.readFileSync(output, 'utf8');
    assert.match(svg, /^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
    assert.match(svg, /<text [^>]*>commit \(60\)<\/text>/);
    assert.match(svg, /href="data:image\/png;base64,/);
  });

  test('refuses an output inside a repository, an unknown attribute, a size not a power of two', () => {
    const inside = runCli(['map', '-o', path.join(repo, 'map.png'), repo]);
    assert.equal(inside.status, 1, inside.stderr);
    assert.match(inside.stderr, /never writes inside a repository/);
    assert.ok(!fs.existsSync(path.join(repo, 'map.png')));
    const attribute = runCli(['map', '--attribute', 'colour', '-o', path.join(root, 'x.png'), repo]);
    assert.match(attribute.stderr, /--attribute must be one of type, depth, family, disk-size/);
    const size = runCli(['map', '--size', '100', '-o', path.join(root, 'x.png'), repo]);
    assert.match(size.stderr, /power of two/);
  });

  test('never writes through a symbolic link: the link and the file it names stay as they were', () => {
    const dir = path.join(root, 'link-out');
    fs.mkdirSync(dir, { recursive: true });
    const victim = path.join(dir, 'victim.txt');
    fs.writeFileSync(victim, 'keep me\n');
    const link = path.join(dir, 'map.png');
    fs.symlinkSync(victim, link);
    const result = runCli(['map', '--size', '16', '-o', link, repo]);
    assert.equal(result.status, 1, result.stderr);
    assert.match(result.stderr, /map\.png: is a symbolic link; map writes only to a regular file or a new name/);
    assert.equal(fs.readFileSync(victim, 'utf8'), 'keep me\n');
    assert.equal(fs.readlinkSync(link), victim);
    // --force replaces regular files only: a link is still refused.
    const forced = runCli(['map', '--force', '--size', '16', '-o', link, repo]);
    assert.equal(forced.status, 1, forced.stderr);
    assert.equal(fs.readFileSync(victim, 'utf8'), 'keep me\n');
    assert.deepEqual(fs.readdirSync(dir).sort(), ['map.png', 'victim.txt']);
  });

  test('refuses a FIFO (and does not block on it), a directory, and a link to a device', async () => {
    const dir = path.join(root, 'fifo-out');
    fs.mkdirSync(dir, { recursive: true });
    const fifo = path.join(dir, 'map.png');
    const made = spawnSync('mkfifo', [fifo]);
    assert.equal(made.status, 0, made.stderr.toString());
    // Run asynchronously with a timer: a CLI that opened the FIFO for writing would wait for a
    // reader for ever, and the test is to fail then, not to hang.
    const child = spawn(process.execPath, [cliPath, 'map', '--size', '16', '-o', fifo, repo], {
      cwd: projectRoot,
      env: { ...process.env, PACKSCOPE_NO_PROGRESS: '1' },
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    const status = await new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
    clearTimeout(timer);
    assert.equal(status, 1, `the CLI did not end on its own (a FIFO blocks a writer): ${stderr}`);
    assert.match(stderr, /map\.png: is a FIFO, not a regular file/);
    assert.ok(fs.lstatSync(fifo).isFIFO());

    const directory = path.join(dir, 'dir.png');
    fs.mkdirSync(directory);
    const onDirectory = runCli(['map', '--force', '--size', '16', '-o', directory, repo]);
    assert.equal(onDirectory.status, 1, onDirectory.stderr);
    assert.match(onDirectory.stderr, /dir\.png: is a directory, not a regular file/);

    const device = path.join(dir, 'null.png');
    fs.symlinkSync('/dev/null', device);
    const onDevice = runCli(['map', '--force', '--size', '16', '-o', device, repo]);
    assert.match(onDevice.stderr, /null\.png: is a symbolic link/);
  });

  test('an existing file is replaced only with --force, through a new file renamed over it', () => {
    const dir = path.join(root, 'force-out');
    fs.mkdirSync(dir, { recursive: true });
    const output = path.join(dir, 'map.png');
    fs.writeFileSync(output, 'an older picture\n');
    const refused = runCli(['map', '--size', '16', '-o', output, repo]);
    assert.equal(refused.status, 1, refused.stderr);
    assert.match(refused.stderr, /map\.png: exists; --force replaces it/);
    assert.equal(fs.readFileSync(output, 'utf8'), 'an older picture\n');

    // A hard link to the old file shows the new one was renamed into place, not written into it.
    const otherName = path.join(dir, 'other-name.png');
    fs.linkSync(output, otherName);
    const forced = runCli(['map', '--force', '--size', '16', '-o', output, repo]);
    assert.equal(forced.status, 0, forced.stderr);
    assert.equal(fs.readFileSync(otherName, 'utf8'), 'an older picture\n');
    const { width, height } = decodePng(output);
    assert.deepEqual([width, height], [16, 16]);
    assert.notEqual(fs.statSync(output).ino, fs.statSync(otherName).ino);
    // No temporary file is left beside it.
    assert.deepEqual(fs.readdirSync(dir).sort(), ['map.png', 'other-name.png']);
  });
});
