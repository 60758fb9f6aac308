/**
 * A thread place of the budget (src/server/thread-budget.ts) goes back when the worker's thread has
 * ended, not when its answer came: a model worker or task worker still unwinding beside the next
 * job's thread ran one thread over the budget (seen in CI: 10 threads against 7 + 2). Real worker
 * threads of the bundled scripts (dist/), counted from /proc/self/status at the moment the waiting
 * job is granted its place.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, test } from 'node:test';
import { CancellationTokenSource } from 'vscode-languageserver/node';
import { SHA1 } from '../../src/core/format/hash-algorithm.ts';
import { ThreadBudget } from '../../src/server/thread-budget.ts';
import { defaultConcurrency, WorkQueues } from '../../src/server/work-queue.ts';
import { ModelLoader } from '../../src/server/workers/model-loader.ts';
import { runTaskWorker } from '../../src/server/workers/task-worker-client.ts';
import { GitSandbox, packStems, projectRoot, tempDir } from '../support/git.ts';
import { historyStream } from '../support/history.ts';

const token = new CancellationTokenSource().token;

function processThreads(): number {
  return Number(/^Threads:\s+(\d+)/m.exec(fs.readFileSync('/proc/self/status', 'utf8'))![1]);
}

/** The threads of this process once no worker runs: libuv's pool started, every ended thread gone. */
async function quietThreads(): Promise<number> {
  await fs.promises.readFile(__filename); // starts libuv's thread pool, if nothing has yet
  let count = processThreads();
  for (let i = 0; i < 50; i++) {
    await new Promise((resolve) => setTimeout(resolve, 20));
    const now = processThreads();
    if (now === count) return now;
    count = now;
  }
  return count;
}

/** Waits for one place of `budget` behind the job holding it; the process's threads when granted. */
async function threadsWhenGranted(budget: ThreadBudget): Promise<number> {
  const { release } = await budget.acquire(1, token);
  const threads = processThreads();
  release();
  return threads;
}

const bundled = (script: string): string => path.join(projectRoot, 'dist', script);

function queues(budget: ThreadBudget): WorkQueues {
  return new WorkQueues(defaultConcurrency(), () => undefined, 60_000, budget);
}

describe('thread places go back when the thread has ended', () => {
  test('a job that hands its worker thread over holds its place until that thread ends', async () => {
    const budget = new ThreadBudget(1);
    let ended!: () => void;
    const threadEnd = new Promise<void>((resolve) => (ended = resolve));
    await queues(budget).run('locality', token, async (_threads, holdPlacesUntil) => {
      holdPlacesUntil(threadEnd);
    });
    assert.equal(budget.used, 1, 'the answer came; the thread has not ended');
    ended();
    await threadEnd;
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(budget.used, 0);
  });

  test('a task worker: the next job gets its place only after the thread has ended', async () => {
    const budget = new ThreadBudget(1);
    const baseline = await quietThreads();
    for (let round = 0; round < 5; round++) {
      const job = queues(budget).run('locality', token, (_threads, holdPlacesUntil) =>
        runTaskWorker(
          bundled('task-worker.js'),
          { kind: 'locality', packs: [], cache: { cacheMiB: 64, readaheadKiB: 128 } },
          token,
          () => undefined,
          holdPlacesUntil,
        ),
      );
      const granted = threadsWhenGranted(budget);
      await job;
      assert.equal(await granted, baseline, `round ${round}: no worker thread left when the place was granted`);
    }
  });

  test('a model build: the next job gets its place only after the model worker has ended', async (t) => {
    const root = tempDir(t, 'packscope-places-');
    const sandbox = new GitSandbox(root);
    const repo = sandbox.init('repo');
    sandbox.fastImport(repo, historyStream({ commits: 60, files: 8 }));
    const stem = packStems(path.join(repo, '.git', 'objects'))[0]!;
    const cacheDir = path.join(root, 'cache');
    fs.mkdirSync(cacheDir);
    const budget = new ThreadBudget(1);
    const baseline = await quietThreads();
    for (let round = 0; round < 3; round++) {
      // A fresh loader each round: the model is built (then reopened) in a model worker, never kept in memory.
      const loader = new ModelLoader(cacheDir, bundled('model-worker.js'), 1, () => undefined, budget);
      const load = loader.ensure({ pack: `${stem}.pack`, idx: `${stem}.idx` }, SHA1);
      const granted = threadsWhenGranted(budget);
      const { model } = await load;
      assert.ok(model.count > 0);
      assert.equal(await granted, baseline, `round ${round}: no model worker left when the place was granted`);
    }
  });
});
