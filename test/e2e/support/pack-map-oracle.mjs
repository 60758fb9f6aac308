// What the Pack Map must show, computed from git alone (the e2e scenarios' oracle): the objects of
// a pack as `git verify-pack -v` lists them, the objects a command read as its GIT_TRACE_PACK_ACCESS
// lines name them, and the cells of a map over which one of those objects lies, with the map's
// geometry (src/common/pack-map-geometry.ts: cells of equal bytes from the header's end to the
// trailing checksum, a cell lit when a byte of a read object lies in it).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const gitEnv = { ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' };

/** `git verify-pack -v` of a pack: its objects with offset and size in the pack. */
export function verifyPack(packFile) {
  const out = execFileSync('git', ['verify-pack', '-v', packFile.replace(/\.pack$/, '.idx')], {
    env: gitEnv,
    encoding: 'utf8',
    maxBuffer: 64 << 20,
  });
  return out
    .split('\n')
    .filter((l) => /^[0-9a-f]{40} /.test(l))
    .map((l) => {
      const f = l.split(/\s+/);
      return { oid: f[0], type: f[1], diskSize: Number(f[3]), offset: Number(f[4]) };
    });
}

/** The offsets of `packFile` the trace's lines read, in order, one per line (paths resolved from `cwd`, where git ran). */
export function tracedReads(trace, cwd, packFile) {
  const real = fs.realpathSync(packFile);
  return fs
    .readFileSync(trace, 'utf8')
    .split('\n')
    .map((line) => / (\S+\.pack) (\d+)$/.exec(line))
    .filter((m) => m && fs.realpathSync(path.resolve(cwd, m[1])) === real)
    .map((m) => Number(m[2]));
}

/** The distinct offsets of `packFile` the trace's lines read. */
export function tracedOffsets(trace, cwd, packFile) {
  return new Set(tracedReads(trace, cwd, packFile));
}

/** The cells of a map of `order` over which a byte of one of `ranges` ([start, end) in the pack) lies. */
export function expectedLitCells(order, ranges, packBytes, hashBytes = 20) {
  const dataStart = 12;
  const dataEnd = packBytes - hashBytes;
  const span = dataEnd - dataStart;
  const before = new Uint32Array(packBytes + 1);
  const read = new Uint8Array(packBytes);
  for (const [start, end] of ranges) read.fill(1, start, end);
  for (let b = 0; b < packBytes; b++) before[b + 1] = before[b] + read[b];
  const cells = 4 ** order;
  let lit = 0;
  for (let d = 0; d < cells; d++) {
    const start = dataStart + Math.floor((d * span) / cells);
    const end = dataStart + Math.floor(((d + 1) * span) / cells);
    if (start >= dataEnd) continue;
    const lastByte = Math.max(start, Math.min(end, dataEnd) - 1);
    if (before[lastByte + 1] - before[start] > 0) lit++;
  }
  return lit;
}
