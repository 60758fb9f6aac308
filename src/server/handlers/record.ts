/** `packscope/record`: a git command run with GIT_TRACE_PACK_ACCESS into a recording outside the repository. */
import type { ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { killProcessGroup } from '../../core/git/run-git.ts';
import { ObjectStore } from '../../core/model/object-store.ts';
import { makeDirectories } from '../../core/atomic-file.ts';
import { enclosingRepositoryRoot, repositoryRootHolding } from '../../core/model/outside-repository.ts';
import { discoverRepository } from '../../core/model/repository.ts';
import { recordGitCommand } from '../../core/trace/record-git.ts';
import { formatCount } from '../../shared/format.ts';
import { RecordRequest, type RecordingInfo } from '../../protocol/server-protocol.ts';
import { cancelledError, cancelledPromise, throwIfCancelled } from '../cancellation.ts';
import { openRecording } from '../recording-opener.ts';
import { invalid } from '../request-params.ts';
import { nested, withProgress } from '../request-progress.ts';
import type { ServerContext } from '../server-context.ts';

/** How often a recording's trace file is looked at for the progress line. */
const RECORD_PROGRESS_MS = 250;

/** Counts the pack-access lines of a growing trace file, reading only what was appended. */
class TraceLineCounter {
  private position = 0;
  private partial = '';
  lines = 0;

  constructor(private readonly file: string) {}

  poll(): void {
    let fd: number;
    try {
      fd = fs.openSync(this.file, 'r');
    } catch {
      return;
    }
    try {
      const buffer = Buffer.allocUnsafe(1 << 20);
      for (;;) {
        const got = fs.readSync(fd, buffer, 0, buffer.length, this.position);
        if (got === 0) break;
        this.position += got;
        const text = this.partial + buffer.toString('latin1', 0, got);
        const lines = text.split('\n');
        this.partial = lines.pop()!;
        for (const line of lines) if (/\.pack \d+$/.test(line)) this.lines++;
        if (got < buffer.length) break;
      }
    } finally {
      fs.closeSync(fd);
    }
  }
}

export function registerRecordHandlers(context: ServerContext): void {
  const { connection } = context;

  connection.onRequest(RecordRequest, (params, token) =>
    context.guarded(() =>
      withProgress(context, params.workDoneToken, 'Recording', token, async (progress): Promise<RecordingInfo> => {
        if (!Array.isArray(params.args) || params.args.length === 0) throw invalid('no git arguments given');
        if (params.mode !== 'exact' && params.mode !== 'passive') throw invalid('mode must be "exact" or "passive"');
        if (typeof params.output !== 'string' || params.output === '') throw invalid('no output file given');
        const cwd = path.resolve(params.cwd);
        const repository = discoverRepository(cwd);
        const output = path.resolve(params.output);
        if (repositoryRootHolding(output, repository) !== undefined || enclosingRepositoryRoot(output) !== undefined) {
          throw invalid(`${output}: the recording must be written outside the repository; PackScope never writes inside a repository`);
        }
        makeDirectories(path.dirname(output), 0o777);
        // recordGitCommand reads every pack's model (checksums, object counts): load them in workers first.
        const state = context.registry.get(repository.commonDir);
        let store: ObjectStore;
        if (state) {
          await context.ensureRepository(state, token, nested(progress));
          store = state.store;
        } else {
          store = new ObjectStore(repository, context.loader.modelStore);
          for (const pack of store.packs) {
            throwIfCancelled(token);
            await context.loader.ensure(pack.files, repository.hash, { cancelled: cancelledPromise(token) });
          }
        }
        throwIfCancelled(token);
        const commandLine = ['git', ...params.args].join(' ');
        const running = `running ${commandLine}…`;
        progress.report(running);
        let child: ChildProcess | undefined;
        let counter: TraceLineCounter | undefined;
        const report = (): void => {
          counter?.poll();
          progress.report(`${running} ${formatCount(counter?.lines ?? 0)} trace lines`);
        };
        const timer = setInterval(report, RECORD_PROGRESS_MS);
        const subscription = token.onCancellationRequested(() => {
          if (child) killProcessGroup(child);
        });
        try {
          await recordGitCommand({
            git: params.git || 'git',
            args: params.args,
            cwd,
            store,
            mode: params.mode,
            output,
            stdio: 'ignore',
            processGroup: true,
            onSpawn: (spawned, traceFile) => {
              child = spawned;
              counter = new TraceLineCounter(traceFile);
              if (token.isCancellationRequested) killProcessGroup(spawned);
            },
          });
        } finally {
          clearInterval(timer);
          subscription.dispose();
        }
        if (token.isCancellationRequested) {
          fs.rmSync(output, { force: true });
          throw cancelledError();
        }
        const { info } = await openRecording(context, { file: output }, token, progress);
        return info;
      }),
    ),
  );
}
