import { before, describe, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { applyRecordingVariables, recordingVariables } from '../../src/common/recording-environment.ts';
import { SIDECAR_VERSION, sidecarPath, type RecordingSidecar } from '../../src/common/recording-sidecar.ts';
import { ModelStore } from '../../src/core/model/model-store.ts';
import { ObjectStore } from '../../src/core/model/object-store.ts';
import { discoverRepository } from '../../src/core/model/repository.ts';
import { parsePolicy } from '../../src/core/sim/policy-registry.ts';
import { parseRecordingFile, resolveRecording, type LoadedRecording } from '../../src/core/trace/load-recording.ts';
import { simulateRecording } from '../../src/core/report/simulation.ts';
import { recordingSummary } from '../../src/core/report/recording.ts';
import { timePlan } from '../../src/core/cost/time-plan.ts';
import { GitSandbox, gitEnv, tempDir } from '../support/git.ts';
import { SeededRandom } from '../support/seeded-random.ts';

/**
 * A terminal recording as the extension makes it: git run with exactly the environment its
 * terminals get (src/common/recording-environment.ts, exact mode) appending to one raw trace, and
 * the sidecar the terminal recorder writes next to it. Replayed, it must be what a `record`
 * recording is: exact at limit 0, exact or bounded around real git elsewhere, with a time estimate
 * from the processes' own times.
 */
const COMMANDS = [
  ['log', '-p', '-n', '40'],
  ['blame', 'Makefile'],
  ['log', '--raw', '-n', '80'],
];
const LIMITS = [0, 4 << 10, 16 << 10, 64 << 10, 1 << 20, 96 << 20];

describe('terminal recordings made in exact mode replay like record ones', () => {
  let sandbox: GitSandbox;
  let repo: string;
  let store: ObjectStore;

  before(() => {
    sandbox = new GitSandbox(tempDir(undefined, 'packscope-terminal-'));
    process.on('exit', () => fs.rmSync(sandbox.root, { recursive: true, force: true }));
    repo = sandbox.init('repo');
    sandbox.fastImport(repo, history(150, 5));
    sandbox.git(repo, ['repack', '-adf', '--depth=50', '--window=50']);
    sandbox.git(repo, ['reset', '-q', '--hard', 'main']);
    store = new ObjectStore(discoverRepository(repo), new ModelStore(undefined));
  });

  /** Runs the commands as a terminal would with recording on; `extra` replaces variables after. */
  function terminalSession(name: string, commands: string[][], extra: Record<string, string> = {}): string {
    const trace = path.join(sandbox.root, `${name}.trace`);
    const base = gitEnv(sandbox.home);
    const env = { ...applyRecordingVariables(base, recordingVariables(base, trace, 'exact')), ...extra };
    for (const args of commands) execFileSync('git', args, { cwd: repo, env, stdio: ['ignore', 'ignore', 'pipe'] });
    return trace;
  }

  function writeSidecar(trace: string): void {
    const sidecar: RecordingSidecar = {
      version: SIDECAR_VERSION,
      source: 'terminal',
      mode: 'exact',
      recordedLimit: 0,
      startedAt: new Date().toISOString(),
      session: 'test',
      part: 1,
    };
    fs.writeFileSync(sidecarPath(trace), JSON.stringify(sidecar));
  }

  function load(trace: string): LoadedRecording {
    return resolveRecording(parseRecordingFile(trace), store);
  }

  /** GIT_TRACE_PACK_ACCESS lines of the commands run at `limit`, each process alone as git runs it. */
  function realLines(commands: string[][], limit: number): number {
    let lines = 0;
    for (const args of commands) {
      const trace = path.join(sandbox.root, `real-${process.hrtime.bigint()}.trace`);
      sandbox.git(repo, ['-c', `core.deltaBaseCacheLimit=${limit}`, ...args], {
        env: { GIT_TRACE_PACK_ACCESS: trace },
      });
      if (fs.existsSync(trace)) lines += fs.readFileSync(trace, 'utf8').split('\n').filter(Boolean).length;
    }
    return lines;
  }

  test('exact at limit 0, exact or bounded around real git elsewhere, as "exact, 0 from the terminal environment"', (t) => {
    const trace = terminalSession('session', COMMANDS);
    writeSidecar(trace);
    const loaded = load(trace);
    assert.equal(loaded.segments.length, COMMANDS.length);
    assert.equal(loaded.environmentLimit, 0);
    const summary = recordingSummary(loaded);
    assert.equal(summary.mode, 'exact');
    assert.equal(summary.recordedLimit, 0);
    assert.equal(summary.recordedLimitFrom, 'terminal environment');
    const git = parsePolicy('git');
    const table: string[] = [];
    for (const limit of LIMITS) {
      const cell = simulateRecording(loaded, git, limit);
      const real = realLines(COMMANDS, limit);
      table.push(
        `${limit}: real ${real} predicted ${cell.logged} bounds ${cell.bounds?.logged.join('–')} (${cell.exactness})`,
      );
      assert.ok(cell.bounds, `bounds at ${limit}:\n${table.join('\n')}`);
      assert.ok(cell.bounds.logged[0] <= real && real <= cell.bounds.logged[1], table.join('\n'));
      if (cell.exact) assert.equal(cell.logged, real, table.join('\n'));
      if (limit === 0) {
        assert.equal(cell.exact, true);
        assert.equal(cell.exactness, 'recorded at this limit');
      }
    }
    t.diagnostic(table.join('\n'));
  });

  test('without the sidecar the same trace is a raw trace: no limit claimed', () => {
    const trace = terminalSession('no-sidecar', COMMANDS.slice(0, 1));
    const cell = simulateRecording(load(trace), parsePolicy('git'), 0);
    assert.equal(cell.exact, false);
    assert.equal(cell.exactness, 'raw trace: the limit git ran with is unknown');
  });

  test('a command given its own -c core.deltaBaseCacheLimit makes the limit unknown, with a warning', () => {
    const trace = terminalSession('override', [COMMANDS[0]!, ['-c', 'core.deltaBaseCacheLimit=1m', ...COMMANDS[1]!]]);
    writeSidecar(trace);
    const loaded = load(trace);
    assert.equal(loaded.environmentLimit, undefined);
    assert.ok(
      loaded.warnings.some(
        (w) => w.includes('core.deltaBaseCacheLimit') && w.includes('-c core.deltaBaseCacheLimit=1m'),
      ),
      loaded.warnings.join('\n'),
    );
    assert.equal(simulateRecording(loaded, parsePolicy('git'), 0).exact, false);
  });

  test("the time estimate takes the command time from the processes' exit lines, or says what is missing", async () => {
    const started = process.hrtime.bigint();
    const trace = terminalSession('timed', COMMANDS);
    const wall = Number(process.hrtime.bigint() - started) / 1e9;
    writeSidecar(trace);
    const loaded = load(trace);
    assert.ok(loaded.segments.every((s) => s.seconds !== undefined && s.exitTime !== undefined));
    const plan = await timePlan(loaded, 'git', undefined, undefined);
    assert.equal(plan.recordedLimit, 0);
    const sum = loaded.segments.reduce((total, s) => total + s.seconds!, 0);
    // The processes ran one after another: their union is their sum, and within the wall time around them.
    assert.ok(Math.abs(plan.recordedSeconds - sum) < 1e-3, `${plan.recordedSeconds} vs ${sum}`);
    assert.ok(plan.recordedSeconds > 0 && plan.recordedSeconds <= wall, `${plan.recordedSeconds} within ${wall}`);

    const elsewhere = path.join(sandbox.root, 'performance-elsewhere.trace');
    const untimed = terminalSession('untimed', COMMANDS.slice(0, 2), { GIT_TRACE_PERFORMANCE: elsewhere });
    writeSidecar(untimed);
    await assert.rejects(
      timePlan(load(untimed), 'git', undefined, undefined),
      /2 of the 2 git processes .* have no GIT_TRACE_PERFORMANCE exit line/,
    );
  });
});

/** A file of many lines edited in most commits (blame and log -p walk its chain), and a few others. */
function history(commits: number, seed: number): Buffer {
  const random = new SeededRandom(seed);
  const makefile = Array.from({ length: 300 }, (_, l) => `OBJECTS += object-file-${l}.o # build line ${l}`);
  const others = Array.from({ length: 40 }, (_, i) => `src/file-with-a-long-name-${i}.c`);
  const otherContent = others.map((name) => `${name}\n`.repeat(30));
  const chunks: string[] = [];
  const file = (name: string, data: string): void => {
    chunks.push(`M 100644 inline ${name}\ndata ${Buffer.byteLength(data)}\n${data}`);
  };
  for (let c = 0; c < commits; c++) {
    chunks.push(
      `commit refs/heads/main\nmark :${c + 1}\ncommitter A <a@example.com> ${1_600_000_000 + c * 60} +0000\ndata 9\ncommit ${c % 10}\n`,
    );
    if (c > 0) chunks.push(`from :${c}\n`);
    for (let e = 1 + Math.floor(random.next() * 3); e > 0; e--) {
      const at = Math.floor(random.next() * makefile.length);
      if (random.next() < 0.3) makefile.splice(at, 0, `OBJECTS += added-in-${c}-${e}.o`);
      else makefile[at] = `OBJECTS += changed-in-${c}-${e}.o # was line ${at}`;
    }
    file('Makefile', makefile.join('\n') + '\n');
    const touched = c === 0 ? others.map((_, i) => i) : [Math.floor(random.next() * others.length)];
    for (const i of touched) {
      if (c > 0) otherContent[i] += `edit ${c}\n`;
      file(others[i]!, otherContent[i]!);
    }
    chunks.push('\n');
  }
  chunks.push('done\n');
  return Buffer.from(chunks.join(''));
}
