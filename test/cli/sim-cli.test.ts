import { before, describe, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { formatBytes } from '../../src/common/format.ts';
import { recordingEnvironment } from '../../src/core/trace/record-git.ts';
import { cliPath, GitSandbox, gitEnv, packStems, tempDir } from '../support/git.ts';
import { historyStream } from '../support/history.ts';

interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
}

describe('record, simulate, sweep and locality from the command line', () => {
  let sandbox: GitSandbox;
  let repo: string;
  let cacheDir: string;
  let recordingsDir: string;

  const packscope = (args: string[], env: Record<string, string> = {}): Run => {
    const result = spawnSync(process.execPath, [cliPath, ...args], {
      env: {
        ...gitEnv(sandbox.home),
        PACKSCOPE_NO_PROGRESS: '1',
        PACKSCOPE_CACHE_DIR: cacheDir,
        PACKSCOPE_RECORDINGS_DIR: recordingsDir,
        ...env,
      },
      maxBuffer: 1 << 28,
    });
    return { status: result.status, stdout: result.stdout.toString(), stderr: result.stderr.toString() };
  };

  before(() => {
    sandbox = new GitSandbox(tempDir(undefined, 'packscope-sim-cli-'));
    process.on('exit', () => fs.rmSync(sandbox.root, { recursive: true, force: true }));
    repo = sandbox.init('repo');
    sandbox.fastImport(repo, historyStream({ commits: 120, seed: 5 }));
    sandbox.git(repo, ['repack', '-adf', '--depth=30']);
    cacheDir = path.join(sandbox.root, 'cache');
    recordingsDir = path.join(sandbox.root, 'recordings');
  });

  test('the exact mode adds core.deltaBaseCacheLimit=0 after the config entries the user passes', () => {
    const env = recordingEnvironment(
      { GIT_CONFIG_COUNT: '1', GIT_CONFIG_KEY_0: 'test.key', GIT_CONFIG_VALUE_0: 'hello' },
      '/tmp/t',
      'exact',
    );
    assert.equal(env.GIT_CONFIG_COUNT, '2');
    assert.equal(env.GIT_CONFIG_KEY_0, 'test.key');
    assert.equal(env.GIT_CONFIG_KEY_1, 'core.deltaBaseCacheLimit');
    assert.equal(env.GIT_CONFIG_VALUE_1, '0');
    assert.equal(env.GIT_TRACE_PACK_ACCESS, '/tmp/t');
    assert.equal(env.GIT_TRACE, '/tmp/t');
    const passive = recordingEnvironment({ GIT_TRACE: '2' }, '/tmp/t', 'passive');
    assert.equal(passive.GIT_CONFIG_COUNT, undefined);
    assert.equal(passive.GIT_TRACE, '2', "the user's own GIT_TRACE is left alone");
    // And git really sees both (record passes git's output through).
    const output = spawnSync(
      process.execPath,
      [
        cliPath,
        'record',
        '-o',
        path.join(sandbox.root, 'cfg.psrec'),
        '-C',
        repo,
        '--',
        'config',
        '--get-regexp',
        '^(test\\.key|core\\.deltabasecachelimit)$',
      ],
      {
        env: {
          ...gitEnv(sandbox.home),
          PACKSCOPE_CACHE_DIR: cacheDir,
          GIT_CONFIG_COUNT: '1',
          GIT_CONFIG_KEY_0: 'test.key',
          GIT_CONFIG_VALUE_0: 'hello',
        },
      },
    );
    assert.equal(output.status, 0, output.stderr.toString());
    assert.equal(output.stdout.toString(), 'test.key hello\ncore.deltabasecachelimit 0\n');
  });

  test("record refuses to write inside the repository, and passes on git's exit status", () => {
    const inside = packscope(['record', '-o', path.join(repo, 'x.psrec'), '-C', repo, '--', 'log', '-1']);
    assert.equal(inside.status, 1);
    assert.match(inside.stderr, /outside the repository/);
    assert.ok(!fs.existsSync(path.join(repo, 'x.psrec')));
    const failing = packscope([
      'record',
      '-o',
      path.join(sandbox.root, 'bad.psrec'),
      '-C',
      repo,
      '--',
      'log',
      'no-such-ref',
    ]);
    assert.equal(failing.status, 128);
    const metadata = JSON.parse(
      fs
        .readFileSync(path.join(sandbox.root, 'bad.psrec'), 'utf8')
        .split('\n')[0]!
        .replace(/^#packscope-recording 1 /, ''),
    );
    assert.equal(metadata.exitStatus, 128);
    assert.deepEqual(metadata.command, ['log', 'no-such-ref']);
    assert.equal(metadata.mode, 'exact');
    assert.equal(metadata.cacheLimit, 0);
    assert.equal(metadata.gitVersion, sandbox.gitText(repo, ['--version']).trim().replace('git version ', ''));
  });

  test('sweep cells equal simulate at the same policy and limit; the default recording place is used', () => {
    const recorded = packscope(['record', '-C', repo, '--', 'log', '-p']);
    assert.equal(recorded.status, 0, recorded.stderr);
    const [file] = fs
      .readdirSync(recordingsDir)
      .filter((f) => f.startsWith('repo-log--p-'))
      .map((f) => path.join(recordingsDir, f));
    assert.ok(file, 'the recording went to PACKSCOPE_RECORDINGS_DIR');
    const policies = [
      'git',
      'git-legacy',
      'separate-blob-lru',
      'admit-max:4k',
      'keep-on-hit',
      'gdsf',
      'libgit2',
      'libgit2-objcache:scaled',
      'belady',
    ];
    const limits = ['0', '8k', '96m'];
    const sweep = packscope([
      'sweep',
      '--json',
      '--threads',
      '2',
      '--limits',
      limits.join(','),
      '--policies',
      policies.join(','),
      file!,
    ]);
    assert.equal(sweep.status, 0, sweep.stderr);
    const results = JSON.parse(sweep.stdout).results as {
      policy: string;
      limit: number;
      inflations: number;
      logged: number;
    }[];
    assert.equal(results.length, policies.length * limits.length);
    for (const [i, cell] of results.entries()) {
      assert.equal(cell.policy, policies[i % policies.length]);
      const single = packscope(['simulate', '--json', '--limit', String(cell.limit), '--policy', cell.policy, file!]);
      const result = JSON.parse(single.stdout).results[0];
      assert.equal(result.inflations, cell.inflations, `${cell.policy} at ${cell.limit}`);
      assert.equal(result.logged, cell.logged, `${cell.policy} at ${cell.limit}`);
    }
    const table = packscope(['sweep', '--limits', limits.join(','), '--policies', 'git,belady', file!]);
    // git at 0 (the recording's own limit) is exact; elsewhere a git cell may be a range; belady has
    // no bounds, so its cells are marked ≈ (git-internals §8.1), and notes say what the marks mean;
    // git was checked against a real build (docs/policies.md), belady is not a build, and the last note says so.
    assert.match(
      table.stdout,
      /^inflations over \d+ reads\nlimit +git +belady\n0 +\d+ +≈\d+\n8k +\d+(–\d+)? +≈\d+\n96m +\d+(–\d+)? +≈\d+\n(min–max: not exact; the bounds contain what git does .*\n)?≈: not exact and no bounds \(no bounds for this policy\)\nchecked against real builds of git \(docs\/policies\.md\): git: git 2\.55\.0\n$/,
    );
    const gdsf = packscope(['simulate', '--limit', '8k', '--policy', 'gdsf', file!]);
    assert.match(gdsf.stdout, /^policy +gdsf \(checked against git 2\.55\.0 \+ gdsf\.patch\)$/m);
    assert.match(packscope(['simulate', '--policy', 'belady', file!]).stdout, /^policy +belady \(reference bound\)$/m);
  });

  test('a raw trace with -C: lines of unknown packs and malformed lines are reported, not fatal', () => {
    const trace = path.join(sandbox.root, 'raw.trace');
    sandbox.git(repo, ['log', '--raw'], { env: { GIT_TRACE_PACK_ACCESS: trace } });
    const good = fs.readFileSync(trace, 'utf8').split('\n').filter(Boolean);
    fs.appendFileSync(
      trace,
      [
        '.git/objects/pack/pack-0000000000000000000000000000000000000000.pack 12',
        'not a trace line',
        `${good[0]!.replace(/ \d+$/, ' 13')}`,
      ].join('\n') + '\n',
    );
    const result = packscope(['simulate', '--json', '-C', repo, trace]);
    assert.equal(result.status, 0);
    assert.match(result.stderr, /warning: 1 reads of .*pack-0000000000000000000000000000000000000000\.pack left out/);
    assert.match(result.stderr, /warning: 1 malformed lines skipped \(lines \d+\)/);
    assert.match(result.stderr, /warning: 1 reads left out: their offset is not the start of an object/);
    const document = JSON.parse(result.stdout);
    assert.equal(document.recording.mode, 'raw');
    assert.equal(document.results[0].reads, good.length);
  });

  test('locality: percentiles are nearest-rank over the recorded offsets', () => {
    const file = path.join(sandbox.root, 'loc.psrec');
    assert.equal(packscope(['record', '-o', file, '-C', repo, '--', 'log', '-p']).status, 0);
    const result = packscope(['locality', '--json', file]);
    assert.equal(result.status, 0, result.stderr);
    const [pack] = JSON.parse(result.stdout).packs;
    const offsets = fs
      .readFileSync(file, 'utf8')
      .split('\n')
      .filter((l) => /\.pack \d+$/.test(l))
      .map((l) => Number(l.slice(l.lastIndexOf(' ') + 1)));
    const distances = offsets
      .slice(1)
      .map((o, i) => Math.abs(o - offsets[i]!))
      .sort((a, b) => a - b);
    assert.equal(pack.reads, offsets.length);
    for (const { p, bytes } of pack.percentiles as { p: number; bytes: number }[]) {
      assert.equal(bytes, distances[Math.max(1, Math.ceil((p / 100) * distances.length)) - 1], `P${p}`);
    }
    const backward = offsets.slice(1).filter((o, i) => o < offsets[i]!).length;
    assert.equal(pack.backwardSeekShare, backward / distances.length);
    assert.equal(pack.pack, `${packStems(path.join(repo, '.git', 'objects'))[0]}.pack`);

    // The text prints each distance in binary units (the JSON's exact bytes, as formatBytes reads them).
    const text = packscope(['locality', file]);
    assert.equal(text.status, 0, text.stderr);
    const rows = text.stdout.split('\n').filter((l) => /^\s+[\d.]+%\s/.test(l) && !/reads|seeks/.test(l));
    assert.equal(rows.length, pack.percentiles.length, text.stdout);
    (pack.percentiles as { p: number; bytes: number }[]).forEach(({ p, bytes }, i) => {
      assert.match(rows[i]!, new RegExp(`^\\s+${p}%\\s+${formatBytes(bytes).replace('.', '\\.')}$`), rows[i]);
    });
    assert.ok(
      pack.percentiles.some((q: { bytes: number }) => q.bytes >= 1024),
      'some distance is over 1 KiB, so the units are tried',
    );
    assert.ok(
      rows.some((r) => /KiB|MiB/.test(r)),
      text.stdout,
    );
  });

  test('index-pack-sim prints the three variants; v2.55 never does more work than v2.36', () => {
    const pack = `${packStems(path.join(repo, '.git', 'objects'))[0]}.pack`;
    const result = packscope(['index-pack-sim', '--json', '--limit', '16k', pack]);
    assert.equal(result.status, 0, result.stderr);
    const document = JSON.parse(result.stdout) as {
      results: { variant: string; inflations: number; reconstructions: number }[];
    };
    assert.deepEqual(
      document.results.map((r) => r.variant),
      ['v2.36', 'v2.55', 'release-when-done'],
    );
    assert.ok(document.results[1]!.inflations <= document.results[0]!.inflations);
    assert.ok(document.results[0]!.reconstructions > 0);
  });
});
