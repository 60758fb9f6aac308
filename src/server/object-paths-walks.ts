import { errorMessage } from '../common/error-message.ts';
import { CancellationTokenSource } from 'vscode-languageserver/node';
import type { ObjectLocation, ObjectStore } from '../core/model/object-store.ts';
import { PathTable } from '../core/model/path-table.ts';
import type { PathWalkSummary } from '../core/documents/object-paths-document.ts';
import type { ObjectNames } from '../core/documents/stats-document.ts';
import { objectNames } from '../core/report/stats.ts';
import type { PackModel } from '../core/model/pack-model.ts';
import type { ThreadBudget } from './thread-budget.ts';
import { startTaskWorker, workerStoreOf } from './workers/task-worker-client.ts';
import type { TransferredPaths } from './workers/task-worker-protocol.ts';

function gitOf(git: string | undefined): { git?: string } {
  return git === undefined ? {} : { git };
}

/** A repository's object paths as the server keeps them: per pack (by .pack path), with the walk's summary. */
export interface StorePaths {
  store: ObjectStore;
  table: PathTable;
  byPack: Map<string, Int32Array>;
  summary: PathWalkSummary;
}

interface Walk {
  store: ObjectStore;
  source: CancellationTokenSource;
  /** How far it is, in words ("git rev-list has listed 412,000 of 849,014 objects"), once its worker says. */
  progress?: string;
}

/**
 * The object paths of each repository (core/model/object-paths.ts), walked in a task worker
 * the first time a hover, an object or a list asks, and again when the repository's store is
 * reopened (its packs changed). Until a walk ends the previous one answers for the packs it
 * covered; nothing waits for a walk. Owned by ServerState (one per server).
 */
export class ObjectPathsWalks {
  private readonly done = new Map<string, StorePaths>();
  private readonly running = new Map<string, Walk>();
  /** The store a walk failed for: not walked again until the store is reopened. */
  private readonly failed = new Map<string, ObjectStore>();

  constructor(
    private readonly workerScript: () => string,
    private readonly cacheDir: () => string,
    private readonly log: (message: string) => void,
    /** Called when a walk has ended (the Packs view's lists may then show paths). */
    private readonly onWalked: (repositoryId: string) => void = () => undefined,
    /** The server's bound on worker threads (thread-budget.ts): a walk takes one place while its worker runs. */
    private readonly threads?: ThreadBudget,
    /** The git that may name the objects now (gitForWorkspace's), undefined when none may run: then the walk names them. */
    private readonly git: () => string | undefined = () => undefined,
  ) {}

  /** The paths known for `store` (of repository `id`), starting a walk when they are missing or stale. */
  pathsFor(id: string, store: ObjectStore): StorePaths | undefined {
    const known = this.done.get(id);
    if (known?.store !== store && this.running.get(id)?.store !== store && this.failed.get(id) !== store)
      this.start(id, store);
    return known;
  }

  /** Names of object `n` of `model`: its path from the walk (when there is one) and a commit's or tag's subject. */
  namesOf(id: string, store: ObjectStore, model: PackModel, n: number): ObjectNames {
    const names = objectNames(model, n, () => {
      const paths = this.pathsFor(id, store);
      const column = paths?.byPack.get(model.files.pack);
      // No finished walk for this pack yet: no path to say (undefined), not "none" (null).
      if (!paths || !column || column.length !== model.count) return undefined;
      const node = column[n]!;
      return node < 0 ? null : paths.table.path(node);
    });
    // A walk under way will name it: "resolving names…" rather than nothing (a failed walk says nothing).
    if (model.typeName(n) !== 'commit' && names.path === undefined && this.failed.get(id) !== store) {
      names.namesPending = true;
      const progress = this.running.get(id)?.progress;
      if (progress !== undefined) names.namesProgress = progress;
    }
    return names;
  }

  /** The names of a located object (hover, object document). */
  namesAt(id: string, store: ObjectStore, location: ObjectLocation): ObjectNames {
    return this.namesOf(id, store, location.model, location.object);
  }

  /**
   * Names of an object given by its id (a repack preview's tables, a preview pack's object on the
   * Pack Map): as named in the pack of `store` git reads it from; none when no pack of it has it.
   */
  namesOfId(id: string, store: ObjectStore, oid: string): ObjectNames {
    let location: ObjectLocation;
    try {
      location = store.resolve(oid);
    } catch {
      return {};
    }
    return this.namesAt(id, store, location);
  }

  /** Stops every walk (server shutdown, a workspace folder removed). */
  dispose(): void {
    for (const walk of this.running.values()) walk.source.cancel();
    this.running.clear();
  }

  private start(id: string, store: ObjectStore): void {
    this.running.get(id)?.source.cancel();
    const source = new CancellationTokenSource();
    const walk: Walk = { store, source };
    this.running.set(id, walk);
    let result: TransferredPaths | undefined;
    const started = performance.now();
    const place =
      this.threads === undefined
        ? Promise.resolve({ release: () => undefined })
        : this.threads.acquire(1, source.token);
    const git = this.git();
    const finished = place.then(async ({ release }) => {
      const worker = startTaskWorker(
        this.workerScript(),
        { kind: 'object-paths', store: workerStoreOf(store, this.cacheDir()), ...gitOf(git) },
        source.token,
        (message) => {
          if (message.kind === 'object-paths') result = message.paths;
          else if (message.kind === 'log') this.log(message.message);
          else if (message.kind === 'progress') walk.progress = message.message;
        },
        // A worker running git stops it (its process group) on a `cancel` message; a walk runs on
        // the worker's thread, which reads no message meanwhile, so it is terminated at once.
        { cancel: git === undefined ? 'terminate' : 'message' },
      );
      try {
        await worker.finished;
      } finally {
        // The place is held until the thread has ended.
        void worker.exited.then(release);
      }
    });
    finished.then(
      () => {
        if (this.running.get(id) !== walk || !result) return;
        this.running.delete(id);
        PathTable.check(result.parent, result.start, result.pool);
        const byPack = new Map<string, Int32Array>();
        result.packs.forEach((pack, i) => byPack.set(pack, result!.pathOf[i]!));
        this.done.set(id, {
          store,
          table: new PathTable(result.parent, result.start, result.pool),
          byPack,
          summary: result.summary,
        });
        const s = result.summary;
        this.log(
          `object paths of ${id}: ${result.source === 'persisted' ? 'read from the model cache' : `walked ${s.commits} commits and ${s.trees} trees`}, ${s.named} objects named in ${Math.round(performance.now() - started)} ms${s.namesFrom === 'git rev-list' && result.source !== 'persisted' ? ' by git rev-list' : ''}${s.complete ? '' : ` (incomplete: ${s.problems[0] ?? 'stopped'})`}`,
        );
        this.onWalked(id);
      },
      (error: unknown) => {
        if (this.running.get(id) !== walk) return;
        this.running.delete(id);
        this.failed.set(id, store);
        if (!source.token.isCancellationRequested) this.log(`object paths of ${id}: ${errorMessage(error)}`);
      },
    );
  }
}
