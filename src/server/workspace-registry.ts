import { errorMessage } from '../common/error-message.ts';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { peekIdxObjectCount } from '../core/format/idx.ts';
import { ObjectStore, alternateObjectDirs, type PackLocation } from '../core/model/object-store.ts';
import { discoverRepository, isOutsideAnyRepository, type Repository } from '../core/model/repository.ts';
import { repositoryLayout, scanLooseObjectsAsync } from '../core/model/repository-layout.ts';
import type { RepositoryLayout } from '../core/documents/repository-layout-document.ts';
import { packOverview } from '../core/report/stats.ts';
import type {
  PackListing,
  PackLoading,
  PackSummary,
  RepositoryListing,
  ServerSettings,
} from '../protocol/server-protocol.ts';
import type { ModelLoader, TimedModel } from './workers/model-loader.ts';

/** Directories never worth descending into while looking for repositories. */
const SKIPPED_DIRECTORIES = new Set([
  'node_modules',
  '.git',
  '.hg',
  '.svn',
  'dist',
  'out',
  'build',
  'target',
  '.cache',
]);

/** How long one scan of the loose objects and marker files serves repeated listings. */
const LAYOUT_REUSE_MS = 2000;

/** Pack directories change in bursts (a repack writes .pack, .idx, .rev, then deletes old ones). */
const WATCH_SETTLE_MS = 400;

/** One repository of the workspace, with the packs git would read from it and a watcher on them. */
export class RepositoryState {
  store: ObjectStore;
  private watchers: fs.FSWatcher[] = [];
  private settleTimer: NodeJS.Timeout | undefined;
  private readonly summaries = new Map<string, PackSummary>();
  /** Packs whose model could not be built: the error, shown instead of the pack's numbers. */
  readonly packErrors = new Map<string, string>();
  /**
   * Packs whose background load (the warm-up) the user cancelled (packscope/cancelLoads) before
   * their model was had: listed as such, and not warmed up again until a request loads them.
   */
  readonly cancelledLoads = new Set<string>();
  /** Packs the warm-up is building or will build, with how far it is: the first listing already shows it on the row. */
  readonly backgroundLoads = new Map<string, PackLoading>();
  /** Why the pack directories could not be listed (a damaged multi-pack-index, alternates loop…). */
  error: string | undefined;

  constructor(
    readonly repository: Repository,
    readonly workspaceFolder: string | undefined,
    private readonly loader: ModelLoader,
    private readonly onChanged: (state: RepositoryState) => void,
  ) {
    this.store = this.openStore();
    this.watch();
  }

  get id(): string {
    return this.repository.commonDir;
  }

  get name(): string {
    return path.basename(this.repository.workTree ?? this.repository.commonDir);
  }

  /** Re-reads the pack directories (after a change on disk); models of unchanged packs are kept. */
  reload(): void {
    this.store = this.openStore();
    for (const pack of this.summaries.keys())
      if (!this.store.packs.some((p) => p.files.pack === pack)) this.summaries.delete(pack);
    // A pack that failed may have been rewritten; try it again.
    this.packErrors.clear();
  }

  private openStore(): ObjectStore {
    this.everyPackLoaded = false;
    try {
      const store = new ObjectStore(this.repository, this.loader.modelStore);
      this.error = undefined;
      return store;
    } catch (error) {
      this.error = errorMessage(error);
      return new ObjectStore(this.repository, this.loader.modelStore, {}, []);
    }
  }

  findPack(packPath: string): PackLocation | undefined {
    return this.store.packs.find((p) => p.files.pack === packPath);
  }

  /** Set once every pack is loaded; a hover asks on every request, and asking stats every pack. */
  private everyPackLoaded = false;

  /** Packs whose model is in memory; a store answers lookups only over these without blocking. */
  allLoaded(): boolean {
    this.everyPackLoaded ||= this.store.packs.every(
      (p) => this.store.isUnreadable(p) || this.loader.peek(p.files) !== undefined,
    );
    return this.everyPackLoaded;
  }

  summaryOf(pack: PackLocation, timed: TimedModel): PackSummary {
    const cached = this.summaries.get(pack.files.pack);
    if (cached && cached.checksum === timed.model.checksumHex) return cached;
    const summary: PackSummary = {
      ...packOverview(timed.model),
      source: timed.source,
      loadMs: Math.round(timed.loadMs),
    };
    this.summaries.set(pack.files.pack, summary);
    return summary;
  }

  listingOf(pack: PackLocation): PackListing {
    const entry: PackListing = {
      pack: pack.files.pack,
      name: path.basename(pack.files.pack),
      objectsDir: pack.objectsDir,
      local: pack.local,
    };
    try {
      entry.packFileBytes = fs.statSync(pack.files.pack).size;
      entry.objects = peekIdxObjectCount(pack.files.idx);
    } catch (error) {
      entry.error = errorMessage(error);
    }
    const failed = this.packErrors.get(pack.files.pack);
    if (failed !== undefined) entry.error = failed;
    const loaded = this.loader.peek(pack.files);
    if (loaded) entry.summary = this.summaryOf(pack, loaded);
    else if (this.cancelledLoads.has(pack.files.pack)) entry.loadCancelled = true;
    else {
      const loading = this.backgroundLoads.get(pack.files.pack);
      if (loading !== undefined) entry.loading = { ...loading };
    }
    return entry;
  }

  listing(): RepositoryListing {
    const packs = this.store.packs.map((pack) => this.listingOf(pack));
    let storage: RepositoryListing['storage'];
    const layout = this.layout();
    if (layout !== undefined && layout.packs.length === packs.length) {
      layout.packs.forEach((pack, i) => (packs[i]!.layout = pack));
      const { packs: _packs, ...rest } = layout;
      storage = rest;
    }
    const listing: RepositoryListing = {
      id: this.id,
      name: this.name,
      gitDir: this.repository.gitDir,
      objectFormat: this.repository.hash.name,
      packs,
    };
    if (storage !== undefined) listing.storage = storage;
    if (this.error !== undefined) listing.error = this.error;
    if (this.repository.workTree !== undefined) listing.workTree = this.repository.workTree;
    if (this.workspaceFolder !== undefined) listing.workspaceFolder = this.workspaceFolder;
    return listing;
  }

  private layoutCache: { store: ObjectStore; exact: boolean; at: number; layout: RepositoryLayout } | undefined;

  /**
   * Scans the storage for the next listings (small files and headers, and the loose objects: one
   * readdir per fan-out directory and an lstat each, made off this thread). A view lists several
   * times in a burst after a change, so one scan serves the listings of LAYOUT_REUSE_MS for the same
   * store; prune-packable needs lookups, so it is counted only once every model is in memory.
   */
  async prepareListing(): Promise<void> {
    const store = this.store;
    const exact = this.allLoaded();
    const cached = this.layoutCache;
    if (cached && cached.store === store && cached.exact === exact && Date.now() - cached.at < LAYOUT_REUSE_MS) return;
    try {
      const loose = await scanLooseObjectsAsync(store.repository.objectsDir, store.repository.hash.size * 2 - 2);
      // The store may have been reopened meanwhile: the scan is of the objects directory, the rest of this store.
      const layout = repositoryLayout(store, exact ? (oid) => store.locate(oid) !== undefined : undefined, loose);
      this.layoutCache = { store, exact, at: Date.now(), layout };
    } catch (error) {
      this.error ??= errorMessage(error);
    }
  }

  /** The layout prepareListing scanned for the current store, if any. */
  private layout(): RepositoryLayout | undefined {
    return this.layoutCache?.store === this.store ? this.layoutCache.layout : undefined;
  }

  private watch(): void {
    let objectDirs: string[];
    try {
      objectDirs = [this.repository.objectsDir, ...alternateObjectDirs(this.repository.objectsDir)];
    } catch {
      objectDirs = [this.repository.objectsDir];
    }
    for (const objectsDir of objectDirs) {
      // The objects directory too: `pack/` may not exist yet in a new repository.
      for (const dir of [objectsDir, path.join(objectsDir, 'pack')]) {
        try {
          const watcher = fs.watch(dir, { persistent: false }, () => this.scheduleReload());
          watcher.on('error', () => undefined);
          this.watchers.push(watcher);
        } catch {
          // A directory that does not exist (yet) cannot be watched; the objects dir watch covers it.
        }
      }
    }
  }

  private scheduleReload(): void {
    clearTimeout(this.settleTimer);
    this.settleTimer = setTimeout(() => {
      this.settleTimer = undefined;
      const before = this.store.packs.map((p) => `${p.files.pack}:${p.mtimeMs}`).join('\n');
      this.reload();
      const after = this.store.packs.map((p) => `${p.files.pack}:${p.mtimeMs}`).join('\n');
      if (before !== after) this.onChanged(this);
    }, WATCH_SETTLE_MS);
  }

  dispose(): void {
    clearTimeout(this.settleTimer);
    for (const watcher of this.watchers) watcher.close();
    this.watchers = [];
  }
}

/**
 * Every repository of the workspace: found in (and below, to `scanDepth`) each workspace folder,
 * plus the ones the settings name. A worktree and its main checkout share one entry (same objects).
 */
export class WorkspaceRegistry {
  private states = new Map<string, RepositoryState>();
  /** Problems found while discovering (a path in the settings that is not a repository, …). */
  problems: string[] = [];
  /**
   * Repositories found that could not be opened (a `.git` file or a `commondir` naming a FIFO, a
   * device, a path not there): listed as rows with their error, as the CLI words it, so that the
   * Packs view says why a repository it was expected to show is not there.
   */
  unopened: RepositoryListing[] = [];

  constructor(
    private readonly loader: ModelLoader,
    private readonly onChanged: (state: RepositoryState) => void,
  ) {}

  get repositories(): RepositoryState[] {
    return [...this.states.values()];
  }

  get(id: string): RepositoryState | undefined {
    return this.states.get(id);
  }

  discover(workspaceFolders: string[], settings: ServerSettings): void {
    const found = new Map<string, { repository: Repository; folder: string | undefined }>();
    const problems: string[] = [];
    const unopened = new Map<string, RepositoryListing>();
    const refused = (dir: string, folder: string | undefined, error: unknown): void => {
      const where = path.resolve(dir);
      if (unopened.has(where)) return;
      const listing: RepositoryListing = {
        id: where,
        name: path.basename(where),
        gitDir: path.join(where, '.git'),
        objectFormat: 'unknown',
        packs: [],
        error: errorMessage(error),
      };
      if (folder !== undefined) listing.workspaceFolder = folder;
      unopened.set(where, listing);
    };
    const add = (repository: Repository, folder: string | undefined): void => {
      const id = repository.commonDir;
      if (!found.has(id)) found.set(id, { repository, folder });
    };
    for (const folder of workspaceFolders) {
      try {
        add(discoverRepository(folder), folder);
      } catch (error) {
        // A folder in no repository is common (repositories below it may be); one whose repository
        // is broken is not.
        if (!isOutsideAnyRepository(error)) refused(folder, folder, error);
      }
      for (const candidate of repositoriesBelow(folder, settings.scanDepth)) {
        try {
          add(discoverRepository(candidate), folder);
        } catch (error) {
          problems.push(errorMessage(error));
          refused(candidate, folder, error);
        }
      }
    }
    for (const extra of settings.repositories) {
      try {
        add(discoverRepository(extra), undefined);
      } catch (error) {
        problems.push(`packscope.repositories: ${errorMessage(error)}`);
        refused(extra, undefined, error);
      }
    }
    const next = new Map<string, RepositoryState>();
    for (const [id, { repository, folder }] of found) {
      const existing = this.states.get(id);
      if (existing) {
        existing.reload();
        next.set(id, existing);
      } else {
        next.set(id, new RepositoryState(repository, folder, this.loader, this.onChanged));
      }
    }
    for (const [id, state] of this.states) if (!next.has(id)) state.dispose();
    this.states = next;
    this.problems = problems;
    this.unopened = [...unopened.values()];
    const live = new Set<string>();
    for (const state of next.values()) for (const pack of state.store.packs) live.add(pack.files.pack);
    this.loader.forgetExcept(live);
  }

  dispose(): void {
    for (const state of this.states.values()) state.dispose();
    this.states.clear();
  }
}

/** Directories below `root` (to `depth` levels) that hold a `.git` directory or file. */
function repositoriesBelow(root: string, depth: number): string[] {
  const found: string[] = [];
  const visit = (dir: string, level: number): void => {
    if (level > depth) return;
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    if (level > 0 && entries.some((e) => e.name === '.git')) found.push(dir);
    for (const entry of entries) {
      if (
        !entry.isDirectory() ||
        SKIPPED_DIRECTORIES.has(entry.name) ||
        (entry.name.startsWith('.') && entry.name !== '.git')
      )
        continue;
      if (entry.name === '.git') continue;
      visit(path.join(dir, entry.name), level + 1);
    }
  };
  visit(root, 0);
  return found;
}
