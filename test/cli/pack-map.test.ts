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

/** The pixel at `order` whose bytes hold `offset` (pixelBytes' rule, inverted by search). */
function pixelOf(offset: number, order: number): number {
  let low = 0;
  let high = 4 ** order - 1;
  while (low < high) {
    const middle = Math.ceil((low + high) / 2);
    if (pixelBytes(middle, order)[0] <= offset) low = middle;
    else high = middle - 1;
  }
  return low;
}

/** The ruler's round offsets between start and end: multiples of the power of two that gives at most 6. */
function rulerTicks(start: number, end: number): number[] {
  let step = 1;
  while ((end - start) / step > 6) step *= 2;
  const ticks: number[] = [];
  for (let offset = Math.ceil(start / step) * step; offset < end; offset += step)
    if (offset - start > step / 3 && end - offset > step / 3) ticks.push(offset);
  return ticks;
}

const dark = (rgb: number[]): boolean => rgb[0]! < 60 && rgb[1]! < 60 && rgb[2]! < 60;

/** The first row at or below `from` whose pixels satisfy `test`. */
function findRow(
  image: ReturnType<typeof decodePng>,
  from: number,
  test: (row: number[][]) => boolean,
): number | undefined {
  for (let y = from; y < image.height; y++)
    if (test(Array.from({ length: image.width }, (_, x) => image.pixel(x, y)))) return y;
  return undefined;
}

/** What a mark says (src/common/pack-map-scale.ts): start and end exact, a tick in the ruler step's unit. */
function markLabel(offset: number, kind: 'start' | 'tick' | 'end', start: number, end: number): string {
  if (kind !== 'tick') return `${kind} ${offset.toLocaleString('en-US')}`;
  let step = 1;
  while ((end - start) / step > 6) step *= 2;
  if (step >= 1 << 20 && offset % (1 << 20) === 0) return `${(offset / (1 << 20)).toLocaleString('en-US')} MiB`;
  if (step >= 1024 && offset % 1024 === 0) return `${(offset / 1024).toLocaleString('en-US')} KiB`;
  return `${offset.toLocaleString('en-US')} B`;
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
    // The map alone (no scales drawn over it): every pixel is a cell.
    const result = runCli(['map', '--json', '--no-scales', '--size', '64', '-o', output, repo]);
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

  test("the PNG carries its scales: the map as --no-scales draws it, git's offsets marked on it and on a ruler below, the legend", () => {
    const bare = path.join(root, 'out', 'scales-bare.png');
    const output = path.join(root, 'out', 'scales.png');
    assert.equal(runCli(['map', '--no-scales', '--size', '128', '-o', bare, repo]).status, 0);
    const result = runCli(['map', '--json', '--size', '128', '-o', output, repo]);
    assert.equal(result.status, 0, result.stderr);
    const document = JSON.parse(result.stdout.toString());
    const map = decodePng(bare);
    const image = decodePng(output);
    // Room below the map for the ruler, the caption and the legend; wide enough for their words.
    assert.ok(image.width >= 128 && image.height >= 128 + 100, `${image.width}×${image.height}`);
    // The start: git's first entry; the end: the checksum's first byte.
    const start = Math.min(...entries.map((e) => e.offset));
    const end = packBytes - 20;
    assert.equal(start, 12);
    const marks = [start, ...rulerTicks(start, end), end];
    // The map's pixels are the bare map's, but where a mark's ring or label is drawn over it.
    const order = 7;
    // Each mark's ring, and its label's box: beside the ring (left of it near the right edge), under it at the top edge.
    const boxes = marks.flatMap((offset, i) => {
      const [px, py] = hilbertPoint(order, pixelOf(Math.min(offset, end - 1), order));
      const width =
        markLabel(offset, i === 0 ? 'start' : i === marks.length - 1 ? 'end' : 'tick', start, end).length * 7;
      const [mx, my] = [px + 0.5, py + 0.5];
      const tx = mx + 8 + width > 128 ? mx - 8 - width : mx + 8;
      const ty = my < 13 ? my + 6 : Math.min(128 - 14, my - 6.5);
      return [
        [px - 7, py - 7, px + 7, py + 7],
        [Math.floor(tx) - 3, Math.floor(ty) - 2, Math.ceil(tx + width) + 3, Math.ceil(ty) + 14],
      ];
    });
    const covered = (x: number, y: number): boolean =>
      boxes.some(([x0, y0, x1, y1]) => x >= x0! && x <= x1! && y >= y0! && y <= y1!);
    let same = 0;
    for (let y = 0; y < 128; y++)
      for (let x = 0; x < 128; x++) {
        if (covered(x, y)) continue;
        assert.deepEqual(image.pixel(x, y), map.pixel(x, y), `pixel (${x}, ${y})`);
        same++;
      }
    assert.ok(same > 128 * 128 * 0.5, `${same} pixels compared`);
    // Each mark is a dark ring around the pixel holding its offset, as git lays bytes: the pixel whose bytes hold it.
    for (const offset of marks) {
      const d = pixelOf(Math.min(offset, end - 1), order);
      const [from, to] = pixelBytes(d, order);
      assert.ok(from <= Math.min(offset, end - 1) && Math.min(offset, end - 1) < to);
      const [mx, my] = hilbertPoint(order, d);
      // Radius 3 for a tick, 4.5 for the start and end.
      const ring = [-4, -3, 3, 4].flatMap((dx) => [
        [mx + dx, my],
        [mx, my + dx],
      ]);
      assert.ok(
        ring.some(([x, y]) => x! >= 0 && y! >= 0 && x! < 128 && y! < 128 && dark(image.pixel(x!, y!))),
        `a ring at (${mx}, ${my}) for offset ${offset}`,
      );
    }
    // The ruler below the map: a dark line across, a tick at each mark's place on it.
    const rulerY = findRow(image, 128, (row) => row.filter(dark).length > image.width * 0.9);
    assert.ok(rulerY !== undefined, 'a ruler line under the map');
    for (const offset of marks) {
      const x = Math.round(8 + ((offset - start) / (end - start)) * (image.width - 17));
      assert.ok(dark(image.pixel(x, rulerY! - 2)) || dark(image.pixel(x - 1, rulerY! - 2)), `ruler tick at ${offset}`);
    }
    // The legend: a swatch of each colour, below the ruler.
    for (const entry of document.legend as { label: string; rgb: number[] }[]) {
      assert.ok(
        findRow(
          image,
          rulerY! + 1,
          (row) => row.slice(0, 60).filter((p) => p.join() === entry.rgb.join()).length >= 10,
        ) !== undefined,
        `a swatch of ${entry.label}`,
      );
    }
    // And the words, as the PNG's description.
    const words = image.text.Description!;
    for (const entry of document.legend as { label: string }[]) assert.ok(words.includes(entry.label), words);
    assert.match(words, new RegExp(`offsets marked: start 12, .*end ${end.toLocaleString('en-US')}`));
    assert.match(words, /128x128|128×128/);
  });

  test('the SVG carries the ruler (start, end, round offsets between), the marks on the map, the legend and the size scale', () => {
    const output = path.join(root, 'out', 'sizes.svg');
    const result = runCli(['map', '--attribute', 'disk-size', '--size', '64', '-o', output, repo]);
    assert.equal(result.status, 0, result.stderr);
    const svg = fs.readFileSync(output, 'utf8');
    const start = 12;
    const end = packBytes - 20;
    const ruler = [
      ...svg.matchAll(/<text class="ruler-(start|tick|end)" data-offset="(\d+)"[^>]*>([^<]*)<\/text>/g),
    ].map((m) => [m[1], Number(m[2]), m[3]] as const);
    assert.deepEqual(ruler[0], ['start', start, 'start 12']);
    assert.deepEqual(ruler.at(-1), ['end', end, `end ${end.toLocaleString('en-US')}`]);
    const ticks = ruler.filter(([kind]) => kind === 'tick');
    assert.deepEqual(
      ticks.map(([, offset]) => offset),
      rulerTicks(start, end),
    );
    for (const [, offset, label] of ticks) {
      const [, value, unit] = /^([\d,]+) (B|KiB|MiB)$/.exec(label)!;
      assert.equal(Number(value!.replaceAll(',', '')) * { B: 1, KiB: 1024, MiB: 1 << 20 }[unit as 'B']!, offset);
    }
    // On the map: a ring per mark at the centre of the pixel holding its offset.
    const rings = [...svg.matchAll(/<circle class="mark-(\w+)" data-offset="(\d+)" cx="([\d.]+)" cy="([\d.]+)"/g)];
    assert.equal(rings.length, ruler.length);
    for (const [, , offset, cx, cy] of rings) {
      const at = Math.min(Number(offset), end - 1);
      const d = hilbertIndex(6, Number(cx) - 0.5, Number(cy) - 0.5);
      const [from, to] = pixelBytes(d, 6);
      assert.ok(from <= at && at < to, `offset ${at} in pixel ${cx},${cy}: ${from}..${to}`);
    }
    // The legend and the size scale, up to the largest object git stored.
    assert.match(svg, /<text [^>]*>16 B on disk<\/text>/);
    const largest = Math.max(...entries.map((e) => e.diskSize));
    const stops = [...svg.matchAll(/<text class="size-stop" data-bytes="(\d+)"/g)].map((m) => Number(m[1]));
    assert.equal(stops[0], 16);
    assert.equal(stops.at(-1), largest);
    assert.match(svg, /pixels of [\d.]+ (B|bytes) each/);
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
    const forced = runCli(['map', '--force', '--no-scales', '--size', '16', '-o', output, repo]);
    assert.equal(forced.status, 0, forced.stderr);
    assert.equal(fs.readFileSync(otherName, 'utf8'), 'an older picture\n');
    const { width, height } = decodePng(output);
    assert.deepEqual([width, height], [16, 16]);
    assert.notEqual(fs.statSync(output).ino, fs.statSync(otherName).ino);
    // No temporary file is left beside it.
    assert.deepEqual(fs.readdirSync(dir).sort(), ['map.png', 'other-name.png']);
  });
});
