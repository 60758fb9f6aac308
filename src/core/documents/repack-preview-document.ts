/**
 * The shape of `packscope repack-preview --json` ("packscope.repack-preview/1", docs/json.md),
 * which the server's packscope/repackPreview answers too. Shapes only, importing only other shapes
 * (see stats-document.ts).
 */
import type { PackLocality } from './simulation-documents.ts';
import type { RecordingSummary } from './recording-document.ts';

/** One side of a repack preview (docs/json.md, "packscope.repack-preview/1"). */
export interface LayoutSummary {
  objects: number;
  /** Size of the .pack file(s). */
  packBytes: number;
  /** Objects stored as deltas (OFS and REF). */
  deltas: number;
  ofsDeltas: number;
  refDeltas: number;
  maxDepth: number;
  meanDepth: number;
  meanDeltaDepth: number;
  /** depthHistogram[d] = objects at depth d; [0] counts non-deltas. */
  depthHistogram: number[];
  families: number;
  byType: { commit: number; tree: number; blob: number; tag: number };
  bytes: { inflated: number; onDisk: number };
  packs: { pack: string; checksum: string; objects: number; packBytes: number }[];
}

export interface SizeChange {
  oid: string;
  type: string;
  /** Bytes of its entry in the current pack git reads it from. */
  currentDiskSize: number;
  previewDiskSize: number;
  /** previewDiskSize − currentDiskSize. */
  change: number;
  currentDepth: number;
  previewDepth: number;
  /**
   * The name `git rev-list --objects --all` gives it in today's packs; null when the names do not
   * reach it. Set by the CLI (absent with --no-paths); the panel asks the server for names instead.
   */
  path?: string | null;
}

export interface LayoutReplay {
  /**
   * The `git` policy's counts at each limit (git-internals §1.6); `readSeconds`: those counts priced
   * by the cost model (an estimate: the document's `readTime` says on which calibration),
   * null when there is no calibration to price them with.
   */
  inflations: {
    limit: number;
    reads: number;
    logged: number;
    inflations: number;
    deltaApplications: number;
    inflatedBytes: number;
    appliedBytes: number;
    peakCacheBytes: number;
    readSeconds: number | null;
  }[];
  /** Locality of the reads per pack of the layout (the preview has one). */
  locality: PackLocality[];
}

/**
 * The write-order model of git-internals §5 as a quick estimate of `git repack -a -d`, without a
 * repack: the objects pack-objects would take, in its input order (§5.1: `git rev-list --objects
 * --all --reflog --indexed-objects`, the walk pack-objects runs internally), laid out by §5.2 with
 * the current packs' delta bases, each entry as large as it is today. What it predicts: the object
 * count, where each object would land (so the seek locality of a recording's reads), and the pack
 * size and depths if today's deltas were kept. What it cannot: the deltas a fresh search (-f,
 * another --window or --depth) would find (§7: delta selection is not modelled). Always labelled
 * as an estimate.
 */
export interface WriteOrderEstimate {
  kind: 'estimate';
  basis: string;
  objects: number;
  /** 12-byte header + today's entry sizes + trailing checksum. */
  packBytes: number;
  deltas: number;
  maxDepth: number;
  meanDepth: number;
  depthHistogram: number[];
  families: number;
  /** Objects of the selection found in no local pack (loose, or in an alternate): sized by cat-file. */
  unpackedObjects: number;
  seconds: number;
  git: string[][];
}

/** How far the estimate was from a real preview, when both ran. */
export interface EstimateAccuracy {
  objects: { estimate: number; preview: number };
  packBytes: { estimate: number; preview: number; relativeError: number };
  deltas: { estimate: number; preview: number };
  maxDepth: { estimate: number; preview: number };
  meanDepth: { estimate: number; preview: number };
  /** Spearman rank correlation between estimated and real positions of the objects both hold (1: same order). */
  orderRankCorrelation: number;
  /** Share of objects at exactly the position the estimate gave them. */
  objectsInPlace: number;
  /**
   * The §5 model itself, given the preview's real delta bases instead of today's: the share of
   * objects it puts at their real position, and its rank correlation. 1 and 1 mean the write-order
   * model is exact and the estimate's error is all delta selection.
   */
  modelWithRealDeltas: { objectsInPlace: number; orderRankCorrelation: number };
  recordings: { file: string; estimate: LocalitySummary; preview: LocalitySummary }[];
}

export interface LocalitySummary {
  shortSeekShare: number;
  medianSeek: number;
  p90Seek: number;
}

/** `current`: today's local packs together, and the loose objects a repack would pack too. */
export interface CurrentLayout extends LayoutSummary {
  looseObjects: number;
}

/** One recording replayed on the layouts (docs/json.md, RecordingReplay). */
export interface RecordingReplay {
  recording: RecordingSummary;
  /** Reads compared: the recording's reads whose object is in the preview too. */
  reads: number;
  /** Reads left out on both sides: the preview does not hold their object (it was unreachable). */
  readsNotInPreview: number;
  current: LayoutReplay;
  preview: LayoutReplay | null;
  /** Locality of the same reads on the estimated layout. */
  estimate: PackLocality | null;
  /** The recording's kept replay scale (read-replay.ts) both layouts' read seconds are multiplied by; absent when it has none. */
  readScale?: number;
}

/** The fields of the run are null for an estimate only. */
export interface RepackPreviewDocument {
  schema: 'packscope.repack-preview/1';
  repository: { gitDir: string; objectFormat: string };
  gitVersion: string | null;
  git: string[] | null;
  gitEnvironment: Record<string, string> | null;
  equivalent: string[] | null;
  seconds: number | null;
  current: CurrentLayout | null;
  preview: LayoutSummary | null;
  largestChanges: SizeChange[];
  onlyInPreview: number | null;
  onlyInCurrent: number | null;
  recordings: RecordingReplay[];
  estimate: { estimate: WriteOrderEstimate; accuracy: EstimateAccuracy | null } | null;
  /**
   * Predicted read time of the recordings on both layouts: every layout's counts priced
   * with the calibration of today's largest pack on this machine (git's read path costs per byte
   * and per inflation, which a repack does not change; the counts are the layout's own). Null when
   * no recording was replayed or pricing was not asked for; `calibration` null with `note` saying
   * how to get one when none is cached.
   */
  readTime?: ReadTimeNote | null;
  /** The server's only (the CLI prints them on stderr): recordings skipped or partly read. */
  warnings?: string[];
}

export interface ReadTimeNote {
  estimate: true;
  calibration: {
    date: string;
    key: { packChecksum: string; node: string; cpu: string; git: string };
    pack: string;
    parameters: Record<string, number>;
  } | null;
  note: string;
}
