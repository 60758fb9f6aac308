import type { SizesDocument } from '../core/documents/sizes-document.ts';
import type { ObjectStore } from '../core/model/object-store.ts';
import { PathBlobLookup, type PathBlobIndex } from '../core/report/path-blobs.ts';

/** One walk of a repository's history: its whole sizes document and its blobs by path. */
export interface SizesWalk {
  /** The store the walk sized the blobs from: a reopened store (the packs changed) makes it stale. */
  store: ObjectStore;
  document: SizesDocument;
  blobs: PathBlobLookup;
}

/**
 * The last sizes walk of each repository (packscope/sizes), kept so that the blobs of a path
 * (packscope/pathBlobs) and a second view of the same sizes (the treemap after the Packs view's
 * rows) need not read the history again. One walk per repository: a new one replaces it. Owned by
 * ServerState.
 */
export class SizesWalks {
  private readonly walks = new Map<string, SizesWalk>();

  remember(id: string, store: ObjectStore, document: SizesDocument, blobs: PathBlobIndex): SizesWalk {
    const walk = { store, document, blobs: new PathBlobLookup(blobs) };
    this.walks.set(id, walk);
    return walk;
  }

  /** The walk of repository `id` made on `store` (its current packs), counted as `count` when given. */
  current(id: string, store: ObjectStore, count?: SizesDocument['count']): SizesWalk | undefined {
    const walk = this.walks.get(id);
    if (walk === undefined || walk.store !== store) return undefined;
    return count === undefined || walk.document.count === count ? walk : undefined;
  }

  forget(id: string): void {
    this.walks.delete(id);
  }
}
