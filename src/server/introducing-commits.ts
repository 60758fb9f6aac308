import { errorMessage } from '../common/error-message.ts';
import type { IntroducedBy } from '../core/documents/object-paths-document.ts';
import { findIntroducingCommit } from '../core/git/introducing-commit.ts';
import type { ObjectStore } from '../core/model/object-store.ts';

/**
 * git logs run at once; more wait their turn (each reads the history along one path: seconds on
 * git/git). One, so that a core stays for the hovers and builds the user waits on.
 */
const MAX_RUNNING = 1;
/**
 * Searches waiting their turn; past it the oldest waiting one is given up (its object is asked
 * again when next shown). The newest go first: sweeping the pointer over a file of ids (the hover
 * bench hovers thousands) queued a git log per id, minutes of work nobody waited for.
 */
const MAX_QUEUED = 16;
/** Answers kept per store; past it the oldest go (a reopened store starts afresh anyway). */
const MAX_KEPT = 4096;

interface Search {
  result: IntroducedBy;
  settled: Promise<void>;
}

interface Queued {
  run: () => Promise<void>;
  /** Gives the search up unrun: it settles as still resolving and is forgotten. */
  drop: () => void;
}

/**
 * Which commit introduced each blob or tree the editor asks about (a hover, an object or its
 * document), found on demand by one bounded `git log` per object (introducing-commit.ts) rather
 * than for every object during the names walk: on git/git, the history's every change with its
 * trees (`git log --all --raw -t`) takes about 25 s and ten million lines, one object's path about
 * 4 s. Answers are kept per store (a changed store is a new one); while git looks, the answer says
 * `resolving`. Owned by ServerState.
 */
export class IntroducingCommits {
  private readonly searches = new WeakMap<ObjectStore, Map<string, Search>>();
  private readonly queue: Queued[] = [];
  private running = 0;
  private readonly stop = new AbortController();

  constructor(
    /** The git that may run on the workspace's repositories now; undefined in Restricted Mode. */
    private readonly git: () => string | undefined,
    private readonly log: (message: string) => void,
    /** The subject of a commit of the store, when a pack has it. */
    private readonly subjectOf: (store: ObjectStore, commit: string) => string | undefined,
  ) {}

  /**
   * The commit that introduced `oid` at `path` in `store`'s repository, waiting at most `waitMs`
   * for a search under way (started now when none is): `resolving` after that.
   */
  async within(store: ObjectStore, oid: string, path: string, waitMs: number): Promise<IntroducedBy> {
    const search = this.searchFor(store, oid, path);
    if (search.result.resolving === undefined) return search.result;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([search.settled, new Promise((resolve) => (timer = setTimeout(resolve, waitMs)))]);
    clearTimeout(timer);
    return search.result;
  }

  /** Stops every search (server shutdown). */
  dispose(): void {
    this.stop.abort();
    for (const item of this.queue.splice(0)) item.drop();
  }

  private searchFor(store: ObjectStore, oid: string, path: string): Search {
    let kept = this.searches.get(store);
    if (kept === undefined) this.searches.set(store, (kept = new Map()));
    const key = `${oid}\0${path}`;
    const known = kept.get(key);
    if (known !== undefined) return known;
    const git = this.git();
    if (git === undefined)
      return {
        result: { commit: null, reason: 'this workspace is not trusted: PackScope runs no git in it' },
        settled: Promise.resolve(),
      };
    const search: Search = { result: { commit: null, resolving: true }, settled: Promise.resolve() };
    search.settled = new Promise<void>((settle) => {
      this.queue.push({
        drop: () => {
          if (kept.get(key) === search) kept.delete(key);
          settle();
        },
        run: async () => {
          const repository = store.repository;
          try {
            const commit = await findIntroducingCommit(oid, path, {
              git,
              gitDir: repository.gitDir,
              cwd: repository.workTree ?? repository.gitDir,
              signal: this.stop.signal,
            });
            const subject = commit === null ? undefined : this.subjectOf(store, commit);
            search.result =
              commit === null
                ? { commit: null, reason: `no commit of the history adds it at ${path === '' ? 'the root' : path}` }
                : { commit, ...(subject === undefined ? {} : { subject }) };
          } catch (error) {
            search.result = { commit: null, reason: errorMessage(error) };
            if (!this.stop.signal.aborted) this.log(`introducing commit of ${oid} at ${path}: ${errorMessage(error)}`);
          } finally {
            settle();
          }
        },
      });
    });
    if (kept.size >= MAX_KEPT) kept.delete(kept.keys().next().value!);
    kept.set(key, search);
    while (this.queue.length > MAX_QUEUED) this.queue.shift()!.drop();
    this.next();
    return search;
  }

  private next(): void {
    while (this.running < MAX_RUNNING && this.queue.length > 0) {
      const item = this.queue.pop()!;
      this.running++;
      void item.run().finally(() => {
        this.running--;
        this.next();
      });
    }
  }
}
