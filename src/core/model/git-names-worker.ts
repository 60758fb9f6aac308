/**
 * Worker thread entry of git naming the objects (git-object-names.ts): runs `git rev-list --objects
 * --all` at once and parses its output as it streams, while the thread that started it opens the
 * models and builds its report; the packs' names come in a 'packs' request, and the names go back
 * in one reply, their arrays transferred. A 'cancel' request stops git. Imports only the parser and
 * the git runner, so that it starts (and git with it) in a few milliseconds.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { PackIndex } from '../format/idx.ts';
import { runGit, gitFailure } from '../git/run-git.ts';
import { encodeWorkerError } from '../worker-error.ts';
import type { GitNamesWorkerReply, GitNamesWorkerRequest, GitNamesWorkerTask } from './git-object-names.ts';
import { GitNamesUnusable, RevListParser, revListNamesArguments, type PackNames } from './rev-list-parser.ts';

const task = workerData as GitNamesWorkerTask;
const port = parentPort!;
const controller = new AbortController();
const parser = new RevListParser(task.hashSize, task.limits);
/** What stopped git from this side (the packs could not be read), reported instead of the abort. */
let failure: unknown;

function packNamesOf(request: Extract<GitNamesWorkerRequest, { kind: 'packs' }>): PackNames {
  return {
    packs: request.indexes.map((transferred) => {
      const index = PackIndex.fromTransfer(transferred);
      return { count: index.count, index };
    }),
    types: request.types,
    looseObjectDirs: request.looseObjectDirs,
  };
}

let packsGiven: () => void = () => undefined;
const packs = new Promise<void>((resolve) => (packsGiven = resolve));
port.on('message', (request: GitNamesWorkerRequest) => {
  if (request.kind === 'cancel') {
    controller.abort();
    packsGiven();
    return;
  }
  try {
    parser.resolveWith(packNamesOf(request));
  } catch (error) {
    // Stops git: its run rejects with this error.
    failure ??= error;
    controller.abort();
  }
  packsGiven();
});

function reply(message: GitNamesWorkerReply, transfer: ArrayBuffer[] = []): void {
  port.postMessage(message, transfer);
  port.close();
}

function replyError(error: unknown): void {
  if (error instanceof GitNamesUnusable) reply({ kind: 'unusable', message: error.message });
  else reply({ kind: 'failed', error: encodeWorkerError(error) });
}

async function main(): Promise<void> {
  const run = await runGit(task.git, revListNamesArguments(task.gitDir), {
    cwd: task.gitDir,
    signal: controller.signal,
    processGroup: true,
    bufferedOutput: true,
    onStdout: (chunk) => {
      parser.feed(chunk);
      Atomics.store(task.listed, 0, Math.min(parser.linesParsed, 0x7fffffff));
    },
  });
  if (run.status !== 0) throw new GitNamesUnusable(gitFailure(run).message);
  await packs;
  if (failure !== undefined) throw failure;
  if (controller.signal.aborted) throw Object.assign(new Error('git rev-list was cancelled'), { name: 'AbortError' });
  const names = parser.finish();
  reply(
    {
      kind: 'names',
      parent: names.table.parent,
      start: names.table.start,
      pool: names.table.pool,
      pathOf: names.pathOf,
      commits: names.commits,
      trees: names.trees,
      named: names.named,
      missing: names.missing,
      missingIds: names.missingIds,
    },
    [
      names.table.parent.buffer,
      names.table.start.buffer,
      names.table.pool.buffer,
      ...names.pathOf.map((column) => column.buffer),
    ] as ArrayBuffer[],
  );
}

main().catch((error: unknown) => replyError(failure ?? error));
