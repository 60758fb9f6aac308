import * as fs from 'node:fs';
import * as path from 'node:path';
import { TYPE_NAMES } from '../format/pack-file.ts';
import { combineStats, packStats } from '../model/pack-stats.ts';
import type { PackModel } from '../model/pack-model.ts';
import type { LayoutSummary, SizeChange } from '../documents/repack-preview-document.ts';

export function summarizeLayout(models: PackModel[]): LayoutSummary {
  const stats = models.map((model) => packStats(model, 0));
  const total = combineStats(stats, 0);
  return {
    objects: total.objects,
    packBytes: stats.reduce((sum, p) => sum + p.packFileBytes, 0),
    deltas: total.deltas.ofs + total.deltas.ref,
    ofsDeltas: total.deltas.ofs,
    refDeltas: total.deltas.ref,
    maxDepth: total.maxDepth,
    meanDepth: total.meanDepth,
    meanDeltaDepth: total.meanDeltaDepth,
    depthHistogram: total.depthHistogram,
    families: total.families,
    byType: total.byType,
    bytes: total.bytes,
    packs: stats.map((p) => ({ pack: p.pack, checksum: p.checksum, objects: p.objects, packBytes: p.packFileBytes })),
  };
}

/** Loose objects of an objects directory (`xx/yyyy…` files): a repack packs them too. */
export function countLooseObjects(objectsDir: string, hexLength: number): number {
  let count = 0;
  for (const entry of safeReaddir(objectsDir)) {
    if (!/^[0-9a-f]{2}$/.test(entry)) continue;
    for (const name of safeReaddir(path.join(objectsDir, entry)))
      if (name.length === hexLength - 2 && /^[0-9a-f]+$/.test(name)) count++;
  }
  return count;
}

function safeReaddir(dir: string): string[] {
  try {
    return fs.readdirSync(dir);
  } catch {
    return [];
  }
}

export interface ObjectJoin {
  /** The k objects in both layouts whose on-disk size changed most (by absolute change, unchanged ones left out; ties by id). */
  largestChanges: SizeChange[];
  /** Objects of the preview found in no current pack (loose objects, objects of alternates). */
  onlyInPreview: number;
  /** Objects of the current packs the preview leaves out (unreachable ones; duplicates count once). */
  onlyInCurrent: number;
}

/**
 * Joins the preview with the current packs by object id. An object in several current packs
 * counts at the first pack in `current`'s order (git's search order). No map of ids: each preview
 * object is looked up in the idx name tables, and a bit per current object marks what was matched.
 */
export function joinByObjectId(current: PackModel[], preview: PackModel, k: number): ObjectJoin {
  const matched = current.map((model) => new Uint8Array(model.count));
  const top: SizeChange[] = [];
  let onlyInPreview = 0;
  const previewNames = preview.index.bytes;
  for (let n = 0; n < preview.count; n++) {
    const at = preview.index.namePosition(n);
    let found = false;
    for (let p = 0; p < current.length; p++) {
      const model = current[p]!;
      const m = model.index.find(previewNames, at);
      if (m < 0) continue;
      matched[p]![m] = 1;
      if (found) continue;
      found = true;
      const currentDiskSize = model.columns.diskSize.get(m);
      const previewDiskSize = preview.columns.diskSize.get(n);
      const change = previewDiskSize - currentDiskSize;
      if (change === 0 || k === 0) continue;
      if (top.length === k && Math.abs(change) <= Math.abs(top[top.length - 1]!.change)) continue;
      top.push({
        oid: preview.oidHex(n),
        type: TYPE_NAMES[preview.columns.type[n]!]!,
        currentDiskSize,
        previewDiskSize,
        change,
        currentDepth: model.columns.depth[m]!,
        previewDepth: preview.columns.depth[n]!,
      });
      top.sort((a, b) => Math.abs(b.change) - Math.abs(a.change) || (a.oid < b.oid ? -1 : 1));
      if (top.length > k) top.pop();
    }
    if (!found) onlyInPreview++;
  }
  // Objects present in several current packs are counted once, at their first pack.
  let onlyInCurrent = 0;
  const seenElsewhere = (p: number, m: number): boolean => {
    const oid = current[p]!.index;
    const at = oid.namePosition(m);
    for (let q = 0; q < p; q++) if (current[q]!.index.find(oid.bytes, at) >= 0) return true;
    return false;
  };
  matched.forEach((bits, p) => {
    for (let m = 0; m < bits.length; m++) if (bits[m] === 0 && !seenElsewhere(p, m)) onlyInCurrent++;
  });
  return { largestChanges: top, onlyInPreview, onlyInCurrent };
}
