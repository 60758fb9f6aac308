import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import fc from 'fast-check';
import { parseTraceFile, TraceLogBuilder } from '../../src/core/trace/trace-log.ts';
import { recordingHeader } from '../../src/core/trace/recording.ts';
import { tempDir } from '../support/git.ts';

const PACK = '.git/objects/pack/pack-1f039605592af99dc992eaf505075eeece2dcdf5.pack';

/** Lines as the trace API writes them (git-internals §1.10): timestamp, file:line padded to column 40. */
function prefixed(message: string, where = 'packfile.c:1640'): string {
  const prefix = `04:28:11.156971 ${where}`;
  return `${prefix.padEnd(40)}${message}`;
}

function parse(text: string): ReturnType<TraceLogBuilder['finish']> {
  const builder = new TraceLogBuilder('test.trace');
  const bytes = Buffer.from(text);
  let start = 0;
  for (let i = 0; i <= bytes.length; i++) {
    if (i === bytes.length || bytes[i] === 10) {
      if (i > start || i < bytes.length) builder.addLine(bytes, start, i);
      start = i + 1;
    }
  }
  return builder.finish(bytes.length);
}

test('prefixed, bare, absolute and old-style lines', () => {
  const log = parse(
    [
      prefixed(`${PACK} 12`),
      `${PACK} 469`, // GIT_TRACE_BARE=1
      prefixed('/abs/repo/.git/objects/pack/pack-a.pack 1715', 'sha1_file.c:2259'), // before v2.15
      `${'04:28:11.156971 some/rather/long/path/packfile.c:1771'}${PACK} 1485`, // prefix >= 40: no padding
      prefixed(`/path with spaces/pack-b.pack 99`),
    ].join('\n') + '\n',
  );
  assert.deepEqual(log.packPaths, [PACK, '/abs/repo/.git/objects/pack/pack-a.pack', '/path with spaces/pack-b.pack']);
  assert.deepEqual(Array.from(log.readPack), [0, 0, 1, 0, 2]);
  assert.deepEqual(Array.from(log.readOffset), [12, 469, 1715, 1485, 99]);
  assert.equal(log.malformed.count, 0);
});

test('other trace keys are skipped; GIT_TRACE command lines split the log per git process', () => {
  const log = parse(
    [
      prefixed('trace: built-in: git log -p', 'git.c:460'),
      prefixed(`${PACK} 12`),
      prefixed(`${PACK} 13`),
      prefixed('trace: run_command: less', 'run-command.c:654'),
      prefixed('performance: 0.001 s: git command: git log', 'trace.c:414'),
      'trace: built-in: git blame f.txt', // GIT_TRACE_BARE=1
      `${PACK} 14`,
      prefixed('trace: exec: git-foo', 'git.c:750'),
    ].join('\n'),
  );
  assert.equal(log.segments.length, 2);
  assert.deepEqual(
    log.segments.map((s) => [s.command, s.firstRead, s.endRead]),
    [
      ['git log -p', 0, 2],
      ['git blame f.txt', 2, 3],
    ],
  );
  assert.equal(log.otherLines, 5);
  assert.equal(log.malformed.count, 0);
});

test('malformed lines are counted with their line numbers, never fatal', () => {
  const log = parse(
    [
      prefixed(`${PACK} 12`),
      'garbage',
      `${PACK} twelve`,
      '04:28:11.156971 nocolon',
      `${PACK} 99999999999999999`,
      prefixed(`${PACK} 13`),
    ].join('\n'),
  );
  assert.equal(log.malformed.count, 4);
  assert.deepEqual(log.malformed.firstLines, [2, 3, 4, 5]);
  assert.deepEqual(Array.from(log.readOffset), [12, 13]);
});

test('a recording header carries the metadata; CRLF line ends are accepted', () => {
  const header = recordingHeader({
    version: 1,
    command: ['log', '--raw'],
    cwd: '/r',
    gitDir: '/r/.git',
    gitVersion: '2.39.5',
    mode: 'exact',
    cacheLimit: 0,
    packs: [{ path: PACK, checksum: '1f03', objects: 3 }],
    startedAt: 'a',
    endedAt: 'b',
    exitStatus: 0,
    signal: null,
  });
  const log = parse(`${header}${prefixed(`${PACK} 12`)}\r\n${PACK} 13\r\n`);
  assert.equal(log.metadata?.mode, 'exact');
  assert.deepEqual(log.metadata?.command, ['log', '--raw']);
  assert.deepEqual(Array.from(log.readOffset), [12, 13]);
  assert.equal(log.segments[0]!.command, 'git log --raw');
});

test('streaming a file gives the same log whatever the chunk boundaries; overlong lines are malformed', (t) => {
  const dir = tempDir(t);
  const lines: string[] = [];
  for (let i = 0; i < 30000; i++)
    lines.push(i % 7 === 0 ? `${PACK} ${i}` : prefixed(`${i % 2 ? PACK : '/abs/pack-x.pack'} ${i * 3}`));
  lines.splice(12345, 0, 'x'.repeat(200_000)); // longer than any trace line
  const file = path.join(dir, 'big.trace');
  fs.writeFileSync(file, lines.join('\n') + '\n');
  const log = parseTraceFile(file);
  assert.equal(log.readPack.length, 30000);
  assert.equal(log.malformed.count, 1);
  assert.deepEqual(log.malformed.firstLines, [12346]);
  assert.equal(log.readOffset[29999], 29999 * 3);
  assert.equal(log.lines, 30001);
});

test('any split of the input into lines parses as the whole does (property)', () => {
  const line = fc.oneof(
    fc.nat(1e12).map((n) => prefixed(`${PACK} ${n}`)),
    fc.nat(1e12).map((n) => `/x/pack-y.pack ${n}`),
    fc.string({ maxLength: 60 }).map((s) => s.replace(/\n/g, ' ')),
  );
  fc.assert(
    fc.property(fc.array(line, { maxLength: 40 }), (lines) => {
      const whole = parse(lines.join('\n'));
      const again = parse(lines.join('\n') + '\n');
      assert.deepEqual(Array.from(again.readOffset), Array.from(whole.readOffset));
      assert.equal(again.malformed.count, whole.malformed.count);
    }),
    { numRuns: 500, seed: 4 },
  );
});
