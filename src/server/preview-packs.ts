/**
 * Repack preview packs kept on disk for the Pack Map's before/after: a preview run with
 * `keepPack` leaves its pack in its temporary directory (never in the repository), and the server
 * holds it here, under the pack's path, until the client releases it (packscope/releasePreviewPack,
 * when no map shows it any more), a newer kept preview pushes it out (at most MAX_KEPT), or the
 * server shuts down or exits. A server killed outright leaves the directory to the next server's
 * start-up clean-up (preview-directory.ts: its owner process is gone).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { releaseKeptPack, type KeptPreviewPack } from '../core/repack/preview-pack.ts';
import type { PackLocation } from '../core/model/object-store.ts';

/** Preview packs kept at once (a git.git preview is ~500 MB of disk): the oldest goes first. */
const MAX_KEPT = 2;

export interface KeptPreview {
  kept: KeptPreviewPack;
  /** The workspace repository (its id) the preview was made of. */
  repository: string;
}

export class PreviewPacks {
  private readonly packs = new Map<string, KeptPreview>();

  constructor(private readonly log: (message: string) => void) {
    // Whatever way the server ends, its kept previews go (exit handlers run synchronously).
    process.on('exit', () => this.releaseAll());
  }

  add(preview: KeptPreview): void {
    this.packs.set(preview.kept.files.pack, preview);
    while (this.packs.size > MAX_KEPT) this.release(this.packs.keys().next().value!);
  }

  get(pack: string): KeptPreview | undefined {
    return this.packs.get(pack);
  }

  /** The kept preview pack as the map handlers find a pack (ServerContext.findPack). */
  location(pack: string): PackLocation | undefined {
    const preview = this.packs.get(pack);
    if (!preview) return undefined;
    const { files } = preview.kept;
    const stat = fs.statSync(files.pack, { throwIfNoEntry: false });
    if (!stat) return undefined;
    return {
      files,
      objectsDir: path.dirname(path.dirname(files.pack)),
      local: false,
      mtimeMs: stat.mtimeMs,
      idxName: path.basename(files.idx),
    };
  }

  /** Removes the pack's temporary directory; false when it was not kept. */
  release(pack: string): boolean {
    const preview = this.packs.get(pack);
    if (!preview) return false;
    this.packs.delete(pack);
    releaseKeptPack(preview.kept);
    this.log(`removed the repack preview pack ${path.basename(pack)} (${preview.kept.directory})`);
    return true;
  }

  releaseAll(): void {
    for (const pack of [...this.packs.keys()]) this.release(pack);
  }
}
