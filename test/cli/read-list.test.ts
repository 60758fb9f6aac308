// `packscope simulate --reads FILE` and `sweep --reads FILE`: a read list (src/core/trace/read-list.ts) is replayed as given,
// read for read the same as a trace of the same `<pack> <offset>` lines, and a line that is not a
// read of the repository stops it with the file and the line.
import { before, describe, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { cliPath, GitSandbox, gitEnv, packStems, tempDir } from '../support/git.ts';
import { historyStream } from '../support/history.ts';

interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
}

interface Cell {
  policy: string;
  reads: number;
  logged: number;
  inflations: number;
  exact: boolean;
  exactness: string;
}

describe('simulate --reads: a read list', () => {
  let sandbox: GitSandbox;
  let repo: string;
  let pack: string;
  let ids: string[];
  let offsets: number[];

  const packscope = (args: string[]): Run => {
    const result = spawnSync(process.execPath, [cliPath, ...args], {
      cwd: repo,
      env: {
        ...gitEnv(sandbox.home),
        PACKSCOPE_NO_PROGRESS: '1',
        PACKSCOPE_CACHE_DIR: path.join(sandbox.root, 'cache'),
      },
      maxBuffer: 1 << 28,
    });
    return { status: result.status, stdout: result.stdout.toString(), stderr: result.stderr.toString() };
  };
  const listFile = (name: string, text: string): string => {
    const file = path.join(sandbox.root, name);
    fs.writeFileSync(file, text);
    return file;
  };
  const cell = (run: Run): Cell => {
    assert.equal(run.status, 0, run.stderr);
    return (JSON.parse(run.stdout) as { results: Cell[] }).results[0]!;
  };

  before(() => {
    sandbox = new GitSandbox(tempDir(undefined, 'packscope-read-list-'));
    process.on('exit', () => fs.rmSync(sandbox.root, { recursive: true, force: true }));
    repo = sandbox.init('repo');
    sandbox.fastImport(repo, historyStream({ commits: 80, seed: 3 }));
    sandbox.git(repo, ['repack', '-adfq', '--depth=50', '--window=10']);
    pack = `${packStems(path.join(repo, '.git', 'objects'))[0]!}.pack`;
    // Every object with its offset, in the order verify-pack lists them (pack order): reads that
    // no git command made, each object once and then the first hundred again.
    const listed = sandbox
      .gitText(repo, ['verify-pack', '-v', pack.replace(/\.pack$/, '.idx')])
      .split('\n')
      .map((line) => line.split(/\s+/))
      .filter((words) => /^[0-9a-f]{40}$/.test(words[0]!));
    const order = [...listed, ...listed.slice(0, 100)];
    ids = order.map((words) => words[0]!);
    offsets = order.map((words) => Number(words[4]));
  });

  test('object ids, <pack> <offset> lines and a raw trace of the same reads replay alike; a read list is exact at every limit', () => {
    const byId = listFile('by-id.txt', `# every object once, then a hundred again\n\n${ids.join('\n')}\n`);
    const byOffset = listFile('by-offset.txt', offsets.map((offset) => `${pack} ${offset}`).join('\r\n'));
    const trace = listFile('trace.txt', offsets.map((offset) => `${pack} ${offset}`).join('\n') + '\n');
    for (const policy of ['git', 'libgit2:lookup', 'libgit2-objcache:scaled:lookup']) {
      for (const limit of ['0', '64k', '16m']) {
        const common = ['simulate', '--json', '--policy', policy, '--limit', limit];
        const fromIds = cell(packscope([...common, '--reads', byId]));
        const fromOffsets = cell(packscope([...common, '--reads', byOffset]));
        const fromTrace = cell(packscope([...common, '-C', repo, trace]));
        assert.equal(fromIds.reads, ids.length);
        // Everything but the replay's own time.
        assert.deepEqual(
          { ...fromOffsets, seconds: 0 },
          { ...fromIds, seconds: 0 },
          `${policy} at ${limit}: ids and offsets`,
        );
        assert.equal(
          fromTrace.inflations,
          fromIds.inflations,
          `${policy} at ${limit}: the trace replays the same reads`,
        );
        assert.equal(fromIds.exact, true);
        assert.equal(fromIds.exactness, 'a read list: every read is listed');
        assert.equal(fromTrace.exact, false, 'a raw trace may hide reads; a read list does not');
      }
    }
    const text = packscope(['simulate', '--policy', 'libgit2:lookup', '--reads', byId]);
    assert.equal(text.status, 0, text.stderr);
    assert.match(text.stdout, new RegExp(`^reads +${ids.length} \\(a read list\\)$`, 'm'));
    assert.match(text.stdout, /^exact +yes \(a read list: every read is listed\)$/m);
    assert.doesNotMatch(text.stdout, /raw trace/);
    const json = JSON.parse(packscope(['simulate', '--json', '--reads', byId]).stdout) as {
      recording: { mode: string; reads: number };
    };
    assert.equal(json.recording.mode, 'read-list');
    assert.equal(json.recording.reads, ids.length);
  });

  test('sweep --reads: every cell as simulate --reads gives it, exact, and git cat-file fed the same ids logs what the git cells say', () => {
    const byId = listFile('sweep-ids.txt', `${ids.join('\n')}\n`);
    const limits = [0, 64 << 10, 16 << 20];
    const policies = ['git', 'libgit2:lookup'];
    const run = packscope([
      'sweep',
      '--json',
      '--threads',
      '1',
      '--limits',
      limits.join(','),
      '--policies',
      policies.join(','),
      '--reads',
      byId,
    ]);
    assert.equal(run.status, 0, run.stderr);
    const swept = JSON.parse(run.stdout) as {
      schema: string;
      recording: { mode: string };
      results: (Cell & { limit: number })[];
    };
    assert.equal(swept.schema, 'packscope.sweep/1');
    assert.equal(swept.recording.mode, 'read-list');
    for (const limit of limits) {
      for (const policy of policies) {
        const cellOf = swept.results.find((c) => c.limit === limit && c.policy === policy)!;
        const alone = cell(
          packscope(['simulate', '--json', '--policy', policy, '--limit', String(limit), '--reads', byId]),
        );
        assert.deepEqual({ ...cellOf, seconds: 0 }, { ...alone, seconds: 0 }, `${policy} at ${limit}`);
        assert.equal(cellOf.exact, true);
      }
      const trace = path.join(sandbox.root, `sweep-real-${limit}.trace`);
      sandbox.git(repo, ['-c', `core.deltaBaseCacheLimit=${limit}`, 'cat-file', '--batch=%(objectname)'], {
        input: `${ids.join('\n')}\n`,
        env: { GIT_TRACE_PACK_ACCESS: trace, GIT_TRACE_BARE: '1' },
      });
      const lines = fs.readFileSync(trace, 'utf8').split('\n').filter(Boolean).length;
      const git = swept.results.find((c) => c.limit === limit && c.policy === 'git')!;
      assert.equal(git.logged, lines, `git at ${limit}: trace lines`);
    }
    const text = packscope(['sweep', '--limits', '0,16m', '--policies', 'git', '--reads', byId]);
    assert.equal(text.status, 0, text.stderr);
    assert.match(text.stdout, new RegExp(`^inflations over ${ids.length} reads \\(a read list\\)$`, 'm'));
    for (const [args, message] of [
      [['--reads', byId, byId], /a recording or --reads FILE, not both/],
      [['--segment', '1', '--reads', byId], /--segment needs a recording/],
      [['--time', '--reads', byId], /--time needs a recording: a read list was made by no git command/],
    ] as [string[], RegExp][]) {
      const refused = packscope(['sweep', ...args]);
      assert.equal(refused.status, 1, args.join(' '));
      assert.match(refused.stderr, message);
    }
  });

  test('a line that is not a read of the repository stops the replay with the file and the line', () => {
    const cases: [string, string, RegExp][] = [
      ['not-hex.txt', `${ids[0]}\nnot-an-id\n`, /: line 2: "not-an-id" is neither a full object id \(40 hex digits\)/],
      [
        'short-id.txt',
        `${ids[0]}\n\n${ids[1]!.slice(0, 12)}\n`,
        /: line 3: "[0-9a-f]{12}" is neither a full object id/,
      ],
      ['unknown-id.txt', `${'f'.repeat(40)}\n`, /: line 1: object f{40} is not in any pack of /],
      ['unknown-pack.txt', `${ids[0]}\npack-nothing.pack 12\n`, /: line 2: no pack named "pack-nothing.pack" in /],
      ['bad-offset.txt', `${pack} 13\n`, /: line 1: offset 13 is not the start of an object in pack-[0-9a-f]+\.pack/],
      ['not-number.txt', `${pack} twelve\n`, /: line 1: "twelve" \(after the last space\) is not a decimal offset/],
      ['overlong.txt', `${ids[0]}\n${'a'.repeat(5000)}\n`, /: line 2 is longer than 4128 bytes/],
      ['overlong-last.txt', `${ids[0]}\n${'a'.repeat(3 << 20)}`, /: line 2 is longer than 4128 bytes/],
      ['empty.txt', '# nothing\n\n', /: the read list lists no reads/],
    ];
    for (const [name, text, message] of cases) {
      const file = listFile(name, text);
      const run = packscope(['simulate', '--reads', file]);
      assert.equal(run.status, 1, `${name}: ${run.stdout}`);
      assert.ok(run.stderr.startsWith(`packscope: ${file}`), `${name}: the error names the file: ${run.stderr}`);
      assert.match(run.stderr, message, name);
      assert.equal(run.stderr.trim().split('\n').length, 1, `${name}: one line`);
    }
    const missing = packscope(['simulate', '--reads', path.join(sandbox.root, 'no-such-file')]);
    assert.equal(missing.status, 1);
    assert.match(missing.stderr, /no-such-file: no such read list/);
    const directory = packscope(['simulate', '--reads', sandbox.root]);
    assert.equal(directory.status, 1);
    assert.match(directory.stderr, /not a regular file/);
    const list = listFile('one.txt', `${ids[0]}\n`);
    const both = packscope(['simulate', '--reads', list, list]);
    assert.equal(both.status, 1);
    assert.match(both.stderr, /a recording or --reads FILE, not both/);
    const segment = packscope(['simulate', '--segment', '1', '--reads', list]);
    assert.equal(segment.status, 1);
    assert.match(segment.stderr, /--segment needs a recording/);
  });
});
