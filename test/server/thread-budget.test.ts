/**
 * One bound on the server's worker threads across kinds (src/server/thread-budget.ts),
 * and the work queues and model builds taking their places from it. Counted in places held, no times:
 * jobs of every kind together never hold more than the capacity; a model build waiting goes before
 * waiting jobs (a job that opened a recording holds its worker while the packs it reads are built);
 * a cancelled waiter leaves without starting; a sweep asking one thread per core gets at most the budget.
 */
import * as assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { CancellationTokenSource, LSPErrorCodes, ResponseError } from 'vscode-languageserver/node';
import { ThreadBudget } from '../../src/server/thread-budget.ts';
import { WorkQueues, type WorkKind } from '../../src/server/work-queue.ts';

/** A job that runs until `finish()` is called: what is running is what the test says, not what a clock says. */
function gate(): { promise: Promise<void>; finish: () => void } {
  let finish!: () => void;
  const promise = new Promise<void>((resolve) => (finish = resolve));
  return { promise, finish };
}

/** Lets every settled promise run its continuations. */
async function settle(): Promise<void> {
  for (let i = 0; i < 20; i++) await new Promise((resolve) => setImmediate(resolve));
}

const token = new CancellationTokenSource().token;

describe('ThreadBudget', () => {
  test('places taken never exceed the capacity; released places go to waiters in order', async () => {
    const budget = new ThreadBudget(3);
    const started: string[] = [];
    const releases = new Map<string, () => void>();
    for (const [name, weight] of [
      ['a', 1],
      ['b', 2],
      ['c', 2],
      ['d', 1],
    ] as const) {
      void budget.acquire(weight, token).then(({ release }) => {
        started.push(name);
        releases.set(name, release);
      });
    }
    await settle();
    assert.deepEqual(started, ['a', 'b']);
    assert.equal(budget.used, 3);
    releases.get('a')!();
    await settle();
    // c (2) does not fit in the one place free, and d behind it does not overtake it.
    assert.deepEqual(started, ['a', 'b']);
    releases.get('b')!();
    await settle();
    assert.deepEqual(started, ['a', 'b', 'c', 'd']);
    assert.equal(budget.used, 3);
    releases.get('c')!();
    releases.get('d')!();
    releases.get('d')!(); // twice: given back once
    assert.equal(budget.used, 0);
  });

  test('tryAcquire takes only places free now, never ahead of a waiter, and gives them back once', async () => {
    const budget = new ThreadBudget(3);
    const build = await budget.acquire(1, token, true);
    const scan = budget.tryAcquire(3);
    assert.equal(scan?.places, 2, 'as many of the three asked for as are free');
    assert.equal(budget.used, 3);
    assert.equal(budget.tryAcquire(1), undefined, 'none free');
    let started = false;
    void budget.acquire(1, token).then(() => (started = true));
    scan!.release();
    scan!.release();
    await settle();
    assert.ok(started, 'the waiter got a released place');
    assert.equal(budget.used, 2);
    void budget.acquire(2, token);
    await settle();
    assert.equal(budget.tryAcquire(1), undefined, 'a place is free, but a job waits for two: no overtaking');
    build.release();
  });

  test('a model build goes before waiting jobs', async () => {
    const budget = new ThreadBudget(2);
    const held = await budget.acquire(2, token);
    const started: string[] = [];
    void budget.acquire(2, token).then(({ release }) => {
      started.push('sweep');
      release();
    });
    void budget.acquire(1, undefined, true).then(({ release }) => {
      started.push('build');
      release();
    });
    await settle();
    assert.deepEqual(started, []);
    held.release();
    await settle();
    assert.deepEqual(started, ['build', 'sweep']);
  });

  test('a weight above the capacity takes the whole budget; a cancelled waiter never starts', async () => {
    const budget = new ThreadBudget(2);
    const all = await budget.acquire(64, token);
    assert.equal(all.places, 2);
    const source = new CancellationTokenSource();
    let started = false;
    const waiting = budget.acquire(1, source.token).then(() => (started = true));
    source.cancel();
    await assert.rejects(
      waiting,
      (error: unknown) => error instanceof ResponseError && error.code === LSPErrorCodes.RequestCancelled,
    );
    all.release();
    await settle();
    assert.equal(started, false);
    assert.equal(budget.used, 0);
  });
});

describe('WorkQueues over one ThreadBudget', () => {
  test('every kind at its own bound, together never more threads than the budget; a sweep told how many it got', async () => {
    const budget = new ThreadBudget(2);
    // The per-kind bounds of a 2-core server: before the budget these alone allowed 1 + 2 + 1 + 1 threads at once.
    const queues = new WorkQueues(
      {
        sweep: 1,
        locality: 1,
        'index-pack': 1,
        'open-recording': 1,
        'object-content': 2,
        'repack-preview': 1,
        'pack-map': 4,
        'pack-map-tile': 4,
        calibrate: 1,
        sizes: 1,
        concerns: 1,
      },
      () => undefined,
      60_000,
      budget,
    );
    let running = 0;
    let peak = 0;
    const granted: number[] = [];
    const gates: (() => void)[] = [];
    const job = (kind: WorkKind, threads: number): Promise<void> =>
      queues.run(
        kind,
        token,
        async (places) => {
          running += places;
          peak = Math.max(peak, running);
          if (kind === 'sweep') granted.push(places);
          const { promise, finish } = gate();
          gates.push(finish);
          await promise;
          running -= places;
        },
        threads,
      );
    const jobs = [
      job('sweep', 8),
      job('object-content', 1),
      job('object-content', 1),
      job('locality', 1),
      job('index-pack', 1),
      job('sweep', 8),
      job('repack-preview', 1),
    ];
    // A model build of the loader, waiting among them.
    let buildRan = false;
    const build = budget.acquire(1, undefined, true).then(({ release }) => {
      running += 1;
      peak = Math.max(peak, running);
      buildRan = true;
      running -= 1;
      release();
    });
    for (let round = 0; round < 20; round++) {
      await settle();
      assert.ok(running <= budget.capacity, `${running} threads at once`);
      gates.shift()?.();
    }
    await Promise.all([...jobs, build]);
    assert.equal(peak, 2, 'the budget was used whole, never more');
    assert.deepEqual(granted, [2, 2], 'each sweep ran on the two threads it was given, not eight');
    assert.ok(buildRan);
    assert.equal(budget.used, 0);
  });

  test("the Pack Map's jobs take no place: its one worker is always there", async () => {
    const budget = new ThreadBudget(1);
    const queues = new WorkQueues(
      {
        sweep: 1,
        locality: 1,
        'index-pack': 1,
        'open-recording': 1,
        'object-content': 1,
        'repack-preview': 1,
        'pack-map': 4,
        'pack-map-tile': 4,
        calibrate: 1,
        sizes: 1,
        concerns: 1,
      },
      () => undefined,
      60_000,
      budget,
    );
    const held = await budget.acquire(1, token);
    assert.equal(await queues.run('pack-map', token, async () => 'tile'), 'tile');
    held.release();
  });
});
