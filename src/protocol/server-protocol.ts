/**
 * The one protocol between the extension host and the PackScope server (docs/architecture.md).
 * Hovers are plain LSP `textDocument/hover`; everything else is a request or notification defined
 * here, imported by both sides. Every shape is plain JSON: object ids are lowercase hex, sizes are
 * bytes, offsets are byte offsets into the .pack file. Requests that may build a pack model accept a
 * `workDoneToken` (LSP `$/progress`) and honour cancellation.
 */
// From vscode-jsonrpc rather than vscode-languageserver-protocol (which re-exports the same classes):
// the extension evaluates this module at load time, and the LSP type library is large.
import { NotificationType, RequestType } from 'vscode-jsonrpc';
import type { WorkDoneProgressParams } from 'vscode-languageserver-protocol';
import type { RecordingInfo } from '../core/documents/recording-document.ts';
import type { LayoutReplay, LayoutSummary, RepackPreviewDocument } from '../core/documents/repack-preview-document.ts';
import type {
  IndexPackVariantResult,
  PackLocality,
  PackLocalityWithQuantiles,
  PageCacheOptions,
  SimResult,
} from '../core/documents/simulation-documents.ts';
import type { PackOverview } from '../core/documents/stats-document.ts';
import type { IntroducedBy } from '../core/documents/object-paths-document.ts';
import type { SizesDocument } from '../core/documents/sizes-document.ts';
import type { ConcernsDocument } from '../core/documents/concerns-document.ts';
import type { ObjectWhereabouts, PackLayout, RepositoryLayout } from '../core/documents/repository-layout-document.ts';
import type { PolicyDescription } from '../core/documents/policy-description.ts';
import type { MapAttribute } from '../common/pack-map-geometry.ts';
import type { SeekPath } from '../core/documents/seek-path-document.ts';
import type { TimeView } from '../core/documents/time-view-document.ts';
import type { ObjectTypeName } from '../common/object-types.ts';

// Result shapes are declared once, in core/documents (the documents the CLI prints); the server's add fields to them.
export type { RecordingInfo, RecordingSegment } from '../core/documents/recording-document.ts';
export type { ObjectWhereabouts, PackLayout, RepositoryLayout } from '../core/documents/repository-layout-document.ts';
export type { RepackMode, RepackModePreviewDocument } from '../core/documents/repack-mode-document.ts';
export type { SizesCommit, SizesDocument, SizesRow } from '../core/documents/sizes-document.ts';
export type { ConcernMetric, ConcernRefGroup, ConcernsDocument } from '../core/documents/concerns-document.ts';
import type { RepackMode, RepackModePreviewDocument } from '../core/documents/repack-mode-document.ts';

/** Passed by the client in `initializationOptions` and in `packscope/configure`. */
export interface ServerSettings {
  /** Extra repositories (paths inside them) to read besides those found in the workspace folders. */
  repositories: string[];
  /** How many directory levels below each workspace folder to look for repositories (0: the folder itself). */
  scanDepth: number;
  /** Where persisted pack models are kept; empty: the default cache directory. Never inside a repository. */
  modelCacheDirectory: string;
  /** Off: models are rebuilt every time the server starts. */
  persistModels: boolean;
  /** Packs above this many objects are indexed only when a view asks for them, never for a hover. */
  hoverIndexLimit: number;
  /**
   * The one git executable the server runs (README "Trust and safety"): a request naming another is
   * refused, and its file name must be `git` (or `git.exe`). The extension sends the git it located.
   */
  git: string;
  /**
   * False in Restricted Mode (VS Code's workspace trust): the server then runs no git on the
   * workspace's repositories (repack previews, Measure for real, time estimates, recordings), each
   * refused with the reason. A client that does not say (the CLI's tests) counts as trusted.
   */
  workspaceTrusted: boolean;
}

export const DEFAULT_SERVER_SETTINGS: ServerSettings = {
  repositories: [],
  scanDepth: 1,
  modelCacheDirectory: '',
  persistModels: true,
  hoverIndexLimit: 5_000_000,
  git: 'git',
  workspaceTrusted: true,
};

export interface InitializationOptions {
  settings: ServerSettings;
  /** The only directory `packscope/record` writes recordings into (the extension's storage); without it the server records nothing. */
  recordingDirectory?: string;
}

/** A pack as listed before its model is built: what the idx and the file system tell cheaply. */
export interface PackListing {
  /** Identifies the pack in later requests: the absolute path of the .pack file. */
  pack: string;
  /** `pack-<checksum>.pack`. */
  name: string;
  /** The objects directory (differs from the repository's own for packs of an alternate). */
  objectsDir: string;
  local: boolean;
  /** From the idx header; undefined when the idx cannot be read (see `error`). */
  objects?: number;
  packFileBytes?: number;
  /** Present once the model is loaded (in this server, or persisted). */
  summary?: PackSummary;
  /** Why this pack cannot be read: a PackScopeError's message, naming the file and offset. */
  error?: string;
  /** Its model's background load was cancelled (packscope/cancelLoads) and no model is loaded: the next request for it loads it. */
  loadCancelled?: true;
  /** Its model is being built in the background (the warm-up) or waits its turn there: shown on the row from the first listing. */
  loading?: PackLoading;
  /** Its kind, marker files, MIDX coverage and place in git's search order. */
  layout?: PackLayout;
}

export interface RepositoryListing {
  /** Identifies the repository: the absolute path of its common git directory. */
  id: string;
  /** A short name for the view: the work tree's folder name, or the git directory's. */
  name: string;
  workTree?: string;
  gitDir: string;
  objectFormat: string;
  /** The workspace folder it was found in, when any. */
  workspaceFolder?: string;
  packs: PackListing[];
  /** The multi-pack-indexes, loose objects (as `git count-objects -v`; `prunePackable` only once every model is loaded) and alternates. */
  storage?: Omit<RepositoryLayout, 'packs'>;
  error?: string;
}

export interface ListRepositoriesResult {
  repositories: RepositoryListing[];
}

/** A pack's model, summarised for the Summary node and the pack's description. */
export interface PackSummary extends PackOverview {
  /** 'persisted' when the model came from the model cache, 'built' when it was computed now. */
  source: 'built' | 'persisted';
  /** Milliseconds spent getting the model this time. */
  loadMs: number;
}

export interface PackParams extends WorkDoneProgressParams {
  pack: string;
}

/** One object as the views show it. */
export interface ObjectItem {
  oid: string;
  type: string;
  /** In-pack type: commit/tree/blob/tag, ofs-delta or ref-delta. */
  inPackType: string;
  size: number;
  diskSize: number;
  offset: number;
  depth: number;
  /** Direct delta children in this pack. */
  children: number;
  familySize: number;
  /**
   * A tree's or blob's path (a tag's name): what `git rev-list --objects --all` names it by; null
   * when no ref reaches it; absent while the repository's walk has not finished.
   */
  path?: string | null;
  /** A commit's or tag's subject (`git log -1 --format=%s`). */
  subject?: string;
  /** The repository's walk has not finished: the path is not known yet (shown as "resolving names…"). */
  namesPending?: true;
  /** With namesPending: how far the naming is, in words ("git rev-list has listed 412,000 of 849,014 objects"). */
  namesProgress?: string;
  /**
   * For a blob or tree with a path, in packscope/object and packscope/objectContent: the commit that
   * first introduced it there (src/core/git/introducing-commit.ts), `resolving` while git looks.
   */
  introducedBy?: IntroducedBy;
}

export type ObjectListKind = 'families' | 'deepest' | 'largest' | 'largestOnDisk' | 'mostUsedBases' | 'children';

export interface ObjectListParams extends WorkDoneProgressParams {
  pack: string;
  kind: ObjectListKind;
  /** For 'children': the parent's id. */
  oid?: string;
  /** Index of the first item (pages are `start .. start + count`). */
  start: number;
  count: number;
  /** Only the ranked objects that pass (not for 'children'); `total` then counts those. */
  filter?: ObjectListFilter;
}

/** The Packs view's filter: object types (as rebuilt: a delta counts as its base's type) and a depth range, both ends included. */
export interface ObjectListFilter {
  types?: ObjectTypeName[];
  minDepth?: number;
  maxDepth?: number;
}

export interface ObjectListResult {
  /** How many items the whole list has. */
  total: number;
  items: ObjectItem[];
}

export interface ObjectParams extends WorkDoneProgressParams {
  /** A full id or a unique prefix (at least 4 hex digits). */
  oid: string;
  /** Restricts the lookup to one repository (its id); else every repository of the workspace. */
  repository?: string;
  /**
   * Also the commit that introduced a blob or tree at its path (`introducedBy`: git reads the
   * history along the path, seconds on a large one; the answer waits a moment for it, then says
   * `resolving`). Only where it is shown (a tooltip): not for a chain or an id being typed.
   */
  introducedBy?: boolean;
}

/** The names of objects given by full id (the repack preview's tables): paths once the repository's walk has them. */
export interface ObjectNamesParams {
  repository: string;
  /** Full ids; at most 1,000. */
  oids: string[];
}

/** One entry per id asked, in order: `path` as ObjectItem's, `namesPending` while the walk runs. */
export interface ObjectNamesResult {
  names: { oid: string; path?: string | null; namesPending?: true }[];
}

/** "Go to Object…": an id, a prefix, or (in a trusted workspace) any name `git rev-parse --verify` takes. */
export interface ResolveNameParams {
  name: string;
  /** Restricts it to one repository (its id); else every repository of the workspace. */
  repository?: string;
}

/** The object the name resolves to and its repository, or why none (unknown, ambiguous, not allowed here). */
export type ResolveNameResult = { found: true; oid: string; repository: string } | { found: false; reason: string };

export interface ObjectDetails extends ObjectItem {
  repository: string;
  repositoryName: string;
  pack: string;
  packName: string;
  /** The chain from the object down to its root: [object, base, …, root]. */
  chain: ObjectItem[];
  root: string;
  /** Which pack git reads it from and where else it is (for an object looked up by id). */
  whereabouts?: ObjectWhereabouts;
}

export type ObjectResult = { found: true; object: ObjectDetails } | { found: false; reason: string };

/** Everything an object document shows; text is rendered by the extension. */
export interface ObjectContentParams extends WorkDoneProgressParams {
  oid: string;
  repository?: string;
  /** Content beyond this many bytes is cut (the document says so). */
  maxContentBytes: number;
  /** Delta instructions beyond this many are cut (the document says so). */
  maxInstructions: number;
}

export type DeltaInstructionItem =
  | { op: 'copy'; baseOffset: number; length: number }
  | {
      op: 'insert';
      length: number;
      /** The inserted bytes quoted as JGit's debug-show-pack-delta quotes them (UTF-8 as is, other bytes as Latin-1 escapes). */
      preview: string;
      /** The inserted bytes themselves (at most 127: a delta's insert opcode), base64. */
      dataBase64: string;
    };

export interface ObjectContent {
  details: ObjectDetails;
  /** For a delta: its instructions against its base, in order. */
  delta?: {
    base: string;
    baseSize: number;
    resultSize: number;
    deltaBytes: number;
    instructions: DeltaInstructionItem[];
    totalInstructions: number;
    copiedBytes: number;
    insertedBytes: number;
  };
  /** The object's content: base64 of at most maxContentBytes; `binary` when it holds a NUL byte. */
  contentBase64: string;
  contentBytes: number;
  binary: boolean;
  truncated: boolean;
}

export type ObjectContentResult = { found: true; content: ObjectContent } | { found: false; reason: string };

export interface ResolveIdsParams {
  /** Candidate words (7–64 hex digits) found in text; each is checked for a unique match. */
  words: string[];
}

export interface ResolveIdsResult {
  /** For each word, in order: the full id when the word names exactly one object, else null. */
  oids: (string | null)[];
}

/** Server → client: a repository's packs changed (gc, fetch, repack) or a model finished loading. */
export interface PacksChangedParams {
  repository: string;
}

/** How far a background build of a pack's model is: objects read of the idx's count; `waiting` while it waits its turn. */
export interface PackLoading {
  done: number;
  total: number;
  waiting?: true;
}

/** Server → client: a background build's progress (`loading`), or its end (no `loading`); what a request builds reports through its own `$/progress`. */
export interface LoadProgressParams {
  repository: string;
  /** The .pack file's path, as in PackListing.pack. */
  pack: string;
  loading?: PackLoading;
}

export const ListRepositoriesRequest = new RequestType<Record<string, never>, ListRepositoriesResult, void>(
  'packscope/listRepositories',
);
export const PackSummaryRequest = new RequestType<PackParams, PackSummary, void>('packscope/packSummary');
export const ObjectListRequest = new RequestType<ObjectListParams, ObjectListResult, void>('packscope/objectList');
export const ObjectRequest = new RequestType<ObjectParams, ObjectResult, void>('packscope/object');
export const ObjectContentRequest = new RequestType<ObjectContentParams, ObjectContentResult, void>(
  'packscope/objectContent',
);
export const ResolveIdsRequest = new RequestType<ResolveIdsParams, ResolveIdsResult, void>('packscope/resolveIds');
export const ObjectNamesRequest = new RequestType<ObjectNamesParams, ObjectNamesResult, void>('packscope/objectNames');
export const ResolveNameRequest = new RequestType<ResolveNameParams, ResolveNameResult, void>('packscope/resolveName');
export const ConfigureNotification = new NotificationType<ServerSettings>('packscope/configure');
export const PacksChangedNotification = new NotificationType<PacksChangedParams>('packscope/packsChanged');
export const LoadProgressNotification = new NotificationType<LoadProgressParams>('packscope/loadProgress');
/** `packscope.cancelLoad`: stops the model builds no request asked for (the background warm-up); requests are cancelled by their own tokens. */
export const CancelLoadsNotification = new NotificationType<Record<string, never>>('packscope/cancelLoads');

/** Words a hover or terminal link considers: 7 to 64 hex digits standing alone (git's abbreviations start at 7). */
export const OBJECT_ID_PATTERN = /(?<![0-9A-Za-z])[0-9a-fA-F]{7,64}(?![0-9A-Za-z])/g;

/** Object documents are `packscope:/<oid>?<repository id, URI-encoded>` (read-only, virtual). */
export const OBJECT_DOCUMENT_SCHEME = 'packscope';

// ---------------------------------------------------------------------------------------------
// Recordings, simulations, locality, index-pack. Shapes follow the CLI's JSON
// (docs/json.md: packscope.sweep/1, packscope.locality/1, packscope.index-pack-sim/1) so that a
// request and `packscope … --json` on the same recording give the same numbers.

export interface RecordingParams extends WorkDoneProgressParams {
  /** A recording (`#packscope-recording 1 {…}` header) or a raw GIT_TRACE_PACK_ACCESS file. */
  file: string;
  /** 1-based git process (segment) to keep; all of them when absent. */
  segment?: number;
  /**
   * The repository to map the reads onto (any path in it), as the CLI's -C DIR: by default the one
   * the recording names; for a raw trace, the one its pack paths lead to (a workspace pack by name).
   */
  repository?: string;
}

/** One (policy, limit) cell: the CLI's SimResult. */
export type SimCell = SimResult;

export interface SweepParams extends RecordingParams {
  policies: string[];
  /** Bytes. */
  limits: number[];
  /**
   * Also predict seconds (as `packscope sweep --time`): the pack is calibrated by timing
   * the configured git on it (cached per pack, machine and git), so the extension asks only in a
   * trusted workspace. The extra cells the estimate needs (git's policy at the user's limit and
   * the recorded one) are priced but not added to `results`.
   */
  time?: boolean;
  /**
   * With `time`: time the recording's own reads on git's read path first, unless the calibration
   * keeps a replay of this recording (core/cost/read-replay.ts; seconds to a minute), and scale the
   * model's read seconds by it.
   */
  replay?: boolean;
}

export interface SweepResult {
  recording: RecordingInfo;
  /** Limits in the order given, policies within each limit (as `packscope sweep --json`). */
  results: SimCell[];
  /** With `time`: the estimate, or why there is none (a raw trace has no command time). */
  time?: TimeView;
  timeError?: string;
}

/** A pack's locality as `packscope.locality/1` has it, plus the distance CDF the Locality chart draws. */
export type PackLocalityResult = PackLocalityWithQuantiles;

export interface LocalityParams extends RecordingParams {
  /** Page cache of the cold replay (MiB), as `--cache-mib`; 256 by default. */
  cacheMiB?: number;
  /** Fixed readahead window (KiB), as `--readahead-kib`; 128 by default. */
  readaheadKiB?: number;
}

export interface LocalityResult {
  recording: RecordingInfo;
  pageCache: PageCacheOptions;
  packs: PackLocalityResult[];
}

export interface IndexPackSimParams extends WorkDoneProgressParams {
  /**
   * A .pack file: a pack of the workspace, or any pack file (a recording's pack in a repository
   * outside the workspace), read with the hash algorithm of the repository around it (SHA-1 when it
   * is in none). Without its .idx (a fetch's pack, `pack-objects --stdout`'s) it is indexed from its
   * bytes first, as index-pack does; progress says so.
   */
  pack: string;
  /** core.deltaBaseCacheLimit for index-pack (bytes); 96m by default. */
  limit?: number;
}

export interface IndexPackSimResult {
  pack: string;
  /** Objects in the pack (`objects` of the CLI's JSON). */
  objects: number;
  limit: number;
  /** One entry per variant (v2.36, v2.55, release-when-done), as `packscope index-pack-sim --json`; the Cache Lab reads the counts by name. */
  variants: (IndexPackVariantResult & { [count: string]: unknown })[];
}

export interface RecordParams extends WorkDoneProgressParams {
  /** Where git runs (a path in the repository). */
  cwd: string;
  /** git's arguments, without "git". */
  args: string[];
  /** The recording file to write (in the extension's storage, never in the repository). */
  output: string;
  mode: 'exact' | 'passive';
  /** The git executable. */
  git: string;
  /**
   * Exact mode only: also run the command at each of these limits (bytes) and store the reads the
   * limit-0 trace hides (git-internals §8.1); the command then runs 1 + N times.
   */
  complete?: number[];
}

/**
 * Complete an exact recording at more limits (`packscope record --complete`, git-internals §8.1):
 * its own command run again in its own cwd, at limit 0 and at each limit (with those it was
 * completed at before), into a new recording beside it in the recording directory (the original
 * is kept). Its replay is then exact at those limits.
 */
export interface CompleteRecordingParams extends WorkDoneProgressParams {
  /** A recording made by `packscope record` or `packscope/record` in exact mode (a header with the command). */
  file: string;
  /** Limits (bytes) to complete it at. */
  limits: number[];
  /** The git executable. */
  git: string;
}

export interface MeasureParams extends WorkDoneProgressParams {
  cwd: string;
  args: string[];
  git: string;
  /** core.deltaBaseCacheLimit values to run with (bytes). */
  limits: number[];
  /** Runs per limit; the best (smallest) wall time is the figure. */
  runs: number;
  /**
   * The recording the command is from: its reads are priced at the measured limits and the split
   * of the command's time the runs imply is kept with the pack's calibration, for later
   * time estimates of this command. Absent: nothing is kept.
   */
  recording?: { file: string; segment?: number };
  /**
   * Also run each limit with glibc's malloc thresholds pinned (GLIBC_TUNABLES, as the calibration
   * runs git): a heap that keeps what it frees. The difference is glibc handing freed memory back to
   * the kernel and faulting it in again, which the estimate does not model.
   */
  keptHeap?: boolean;
}

/** The runs of one limit: wall and CPU seconds and minor page faults of each, and the best wall time. */
export interface MeasuredRuns {
  /** Wall seconds of each run; the best is the figure. */
  seconds: number[];
  bestSeconds: number;
  /** User + system seconds of each run (git and its children), null where the shell could not tell. */
  cpuSeconds: (number | null)[];
  /** Minor page faults of each run (Linux; null elsewhere): memory first touched, or handed back by glibc and touched again, which the cost model prices only as the cache's peak. */
  minorFaults: (number | null)[];
}

export interface MeasureResult {
  gitVersion: string;
  results: (MeasuredRuns & {
    limit: number;
    /** With `keptHeap`: the same runs with glibc's malloc thresholds pinned (`heapTunables` says how). */
    keptHeap?: MeasuredRuns;
  })[];
  /** With `keptHeap`: the GLIBC_TUNABLES value those runs had. */
  heapTunables?: string;
  /**
   * With `recording`: the fit measured = nonReadSeconds + readScale · predicted read seconds (null
   * when the runs cannot tell them apart), and where it was kept (null: not kept, `note` says why).
   */
  kept?: { split: { nonReadSeconds: number; readScale: number } | null; file: string | null; note: string };
}

export const RecordingInfoRequest = new RequestType<RecordingParams, RecordingInfo, void>('packscope/recordingInfo');
export const SweepRequest = new RequestType<SweepParams, SweepResult, void>('packscope/sweep');
export const LocalityRequest = new RequestType<LocalityParams, LocalityResult, void>('packscope/locality');
export const IndexPackSimRequest = new RequestType<IndexPackSimParams, IndexPackSimResult, void>(
  'packscope/indexPackSim',
);
export const RecordRequest = new RequestType<RecordParams, RecordingInfo, void>('packscope/record');
export const MeasureRequest = new RequestType<MeasureParams, MeasureResult, void>('packscope/measure');
/** The completed recording (a new file, `file` in the result), opened. */
export const CompleteRecordingRequest = new RequestType<CompleteRecordingParams, RecordingInfo, void>(
  'packscope/completeRecording',
);

/**
 * The files git tracks in a workspace repository's work tree (`git ls-files`), for choosing a file
 * to blame. The server runs it, through the runner that keeps the repository's configuration from
 * running anything (reading the index would start its fsmonitor hook).
 */
export interface TrackedFilesParams {
  /** A workspace repository's id. */
  repository: string;
  git: string;
}
export const TrackedFilesRequest = new RequestType<TrackedFilesParams, { files: string[] }, void>(
  'packscope/trackedFiles',
);

/**
 * The user picked this file (an open dialog, a quick pick, a command's argument): the server may read
 * it as a recording, a trace or a pack although it lies outside the places it reads by itself
 * (README "Trust and safety"; src/server/read-rules.ts). Answers the absolute path allowed.
 */
export interface AllowReadParams {
  file: string;
}
export const AllowReadRequest = new RequestType<AllowReadParams, { file: string }, void>('packscope/allowRead');

// ---------------------------------------------------------------------------------------------
// Repack previews. The result is the document `packscope repack-preview --json` prints
// (docs/json.md, packscope.repack-preview/1), so that a request and the CLI on the same repository
// give the same numbers.

export interface RepackPreviewParams extends WorkDoneProgressParams {
  /** The repository: its id (common git directory) or any path in it. */
  repository: string;
  depth?: number;
  window?: number;
  threads?: number;
  /** Keep today's deltas (`git repack -a -d` without -f, plain `git gc`); default false (-f). */
  reuseDeltas?: boolean;
  /** More pack-objects options, appended as the CLI's `-- …`. */
  extraOptions: string[];
  /** The git executable. */
  git: string;
  /** Recording files to replay on both layouts (those of other repositories are skipped with a warning). */
  recordings: string[];
  /** Also run the write-order estimate (git-internals §5) and compare it with the preview. */
  estimate: boolean;
  /** Only the estimate: no pack-objects run (the CLI's --estimate-only). */
  estimateOnly?: boolean;
  /** Cache limits of the recordings' `git` policy replay (bytes); default 16m and 96m. */
  limits?: number[];
  /**
   * Keep the preview pack in its temporary directory (never the repository's) for the Pack Map's
   * before/after: the result's `previewPack` names it, and packscope/releasePreviewPack removes it.
   */
  keepPack?: boolean;
}

/** One side of a preview (`current`: the local packs together, with `looseObjects`; `preview`: the one pack written). */
export type RepackLayout = LayoutSummary;
export type RepackPackLocality = PackLocality;
export type RepackLayoutReplay = LayoutReplay;

/** A preview pack the server keeps on disk (RepackPreviewParams.keepPack) until packscope/releasePreviewPack. */
export interface KeptPreviewPackInfo {
  /** The .pack path, in its temporary directory: the Pack Map's requests take it as `pack`. */
  pack: string;
  directory: string;
}

/** `packscope repack-preview --json`, with the server's `warnings` (recordings skipped or partly read), and the kept preview pack. */
export type RepackPreviewResult = RepackPreviewDocument & { previewPack?: KeptPreviewPackInfo };

export interface ReleasePreviewPackParams {
  pack: string;
}

/** Removes a kept preview pack's temporary directory (nothing shows it any more); `released` false when it was not kept. */
export const ReleasePreviewPackRequest = new RequestType<ReleasePreviewPackParams, { released: boolean }, void>(
  'packscope/releasePreviewPack',
);

export interface GitCapabilitiesParams {
  git: string;
}

/** What the installed git's pack-objects takes, probed with `git pack-objects -h` (cached per git and version). */
export interface GitCapabilities {
  version: string;
  /** `--name-hash-version` (git 2.49 and later). */
  nameHashVersion: boolean;
  /** `--path-walk` (git 2.51 and later). */
  pathWalk: boolean;
}

export const RepackPreviewRequest = new RequestType<RepackPreviewParams, RepackPreviewResult, void>(
  'packscope/repackPreview',
);

/** Which `git repack` modes the installed git takes (`git repack -h`): `--geometric` (2.32), `--cruft` (2.37). */
/** packscope/sizes: where the bytes of a workspace repository's history go (`packscope sizes --json`). */
export interface SizesParams extends WorkDoneProgressParams {
  /** The repository's id (a workspace repository). */
  repository: string;
  /** Commits listed (default 10). */
  top?: number;
  /**
   * Rows kept of paths and of extensions: the `rows` largest, and the `rows` largest of those
   * deleted, in the document's order (default: every row). Directories are always complete: a
   * view builds its tree of them.
   */
  rows?: number;
  /** `per-path` (default, filter-repo's) or `per-blob`. */
  count?: SizesDocument['count'];
  /**
   * Answer from the server's last walk of the repository when its packs have not changed since
   * (the treemap after the Packs view's rows); without it the history is read again.
   */
  reuse?: boolean;
}

export const SizesRequest = new RequestType<SizesParams, SizesDocument, void>('packscope/sizes');

/**
 * packscope/pathBlobs: every blob that was ever at one path of a workspace repository's history
 * (the sizes walk's pairing of blobs with paths; the history is read first if no walk of the
 * repository's current packs is kept), newest first, a page at a time.
 */
export interface PathBlobsParams extends WorkDoneProgressParams {
  repository: string;
  /** A path as the sizes document names it. */
  path: string;
  /** The first blob listed (default 0). */
  start?: number;
  /** Blobs listed at most (default 100, at most 1000). */
  count?: number;
}

/** One blob at a path. */
export interface PathBlob {
  oid: string;
  /** Where git reads it: a pack, a loose file, or nowhere (a partial clone's missing blob). */
  stored: 'packed' | 'loose' | 'missing';
  /** Its size inflated and on disk (`cat-file`'s `%(objectsize)`, `%(objectsize:disk)`); 0 when missing. */
  inflated: number;
  disk: number;
  /** Its delta depth in its pack (0: whole); null unless packed. */
  depth: number | null;
  /** The commit whose diff showed it first in the history, and its committer date (`YYYY-MM-DD`). */
  commit: string;
  date: string;
}

export interface PathBlobsResult {
  path: string;
  /** Blobs ever at the path (0 when the history never had it). */
  total: number;
  /** The page asked for, newest first. */
  blobs: PathBlob[];
}

export const PathBlobsRequest = new RequestType<PathBlobsParams, PathBlobsResult, void>('packscope/pathBlobs');

/**
 * packscope/concerns: git-sizer's figures and levels of concern for a workspace repository (the
 * `concerns` of `packscope stats --concerns --json`), read from its packs and loose files without git.
 */
export interface ConcernsParams extends WorkDoneProgressParams {
  /** The repository's id (a workspace repository). */
  repository: string;
}

export const ConcernsRequest = new RequestType<ConcernsParams, ConcernsDocument, void>('packscope/concerns');

export interface RepackModes {
  geometric: boolean;
  cruft: boolean;
}

export interface RepackModePreviewParams extends WorkDoneProgressParams {
  /** The repository: its id (common git directory) or any path in it. */
  repository: string;
  mode: RepackMode;
  git: string;
}

export const RepackModesRequest = new RequestType<GitCapabilitiesParams, RepackModes, void>('packscope/repackModes');
/** `packscope repack-preview --geometric N | --cruft --json`'s document: packs before and after that repack. */
export const RepackModePreviewRequest = new RequestType<RepackModePreviewParams, RepackModePreviewDocument, void>(
  'packscope/repackModePreview',
);
export const GitCapabilitiesRequest = new RequestType<GitCapabilitiesParams, GitCapabilities, void>(
  'packscope/gitCapabilities',
);

/** One row of the engine's policy table without its `make` (core/sim/policy-registry.ts). */
export type { PolicyDescription };

/** The cache policies the server's sweeps take, in the order `packscope simulate --help` lists them. */
export interface PoliciesResult {
  policies: PolicyDescription[];
}

export const PoliciesRequest = new RequestType<Record<string, never>, PoliciesResult, void>('packscope/policies');

// ---------------------------------------------------------------------------------------------
// The Pack Map: a pack along its offsets on a Hilbert curve (src/common/pack-map-geometry.ts
// says why), drawn in tiles by the server's map worker at any order, as `packscope map` draws it whole.

/** What a cell's colour shows (src/common/pack-map-geometry.ts). */
export type PackMapAttribute = MapAttribute;

/** Cells per side of a tile (a map of order < 8 is one tile of 2^order cells). */
export const PACK_MAP_TILE_SIZE = 256;

export interface PackMapLegendEntry {
  label: string;
  rgb: [number, number, number];
}

export interface PackMapInfoResult {
  pack: string;
  packName: string;
  objects: number;
  packBytes: number;
  /** Byte range the map covers: the objects, from the header's end to the trailing checksum. */
  dataStart: number;
  dataEnd: number;
  maxDepth: number;
  /** The largest object's bytes on disk: the top of the size colouring's scale. */
  largestOnDisk: number;
  /** The deepest order worth drawing (its cells hold at most one byte each). */
  maxOrder: number;
  /** Bytes one cell covers at each order 0 … 15. */
  bytesPerCell: number[];
  legends: Record<PackMapAttribute, PackMapLegendEntry[]>;
}

export interface PackMapTileParams extends WorkDoneProgressParams {
  pack: string;
  attribute: PackMapAttribute;
  order: number;
  /** The tile's column and row (tiles of PACK_MAP_TILE_SIZE cells). */
  tileX: number;
  tileY: number;
  /** A recording drawn over the map as heat (RecordingParams.file), and one git process of it. */
  recording?: string;
  segment?: number;
  /**
   * The view that wants the tile: `id` names a pane of a client (any string, unique to it) and
   * `generation` grows when that pane shows another view. A request of an older generation than
   * one the server has since been sent for the same id is dropped before it is drawn
   * (RequestCancelled): a view that moved on does not wait for the tiles it left.
   */
  view?: { id: string; generation: number };
}

export interface PackMapTileResult {
  order: number;
  tileX: number;
  tileY: number;
  /** Cells per side of this tile. */
  size: number;
  /**
   * Row-major RGBA, 4 bytes per cell, compressed with raw deflate (RFC 1951, zlib's deflateRaw)
   * and then base64: the LSP link is JSON, and a tile's 256 KiB of RGBA (constant alpha, runs of one
   * object's colour) deflate to a few tens of KiB, so the string is a fraction of plain base64's
   * 350 KiB. The host inflates it and hands the webview the bytes as a Uint8Array (binary).
   */
  rgbaDeflated: string;
  /** With a recording: cells of this tile over which at least one read lies. */
  litCells: number;
  /** With a recording: the pack's distinct objects it read (the same for every tile). */
  recordingObjects?: number;
  /** With a recording: its reads of this pack. */
  recordingReads?: number;
}

export interface PackMapObjectAtParams {
  pack: string;
  order: number;
  x: number;
  y: number;
}

/** The object holding the cell's first byte; found false past the pack's last object. */
export type PackMapObjectAtResult = { found: true; object: ObjectDetails } | { found: false };

/** A delta family over the map: the family of the object `oid` of the pack (src/core/map/family-arcs.ts). */
export interface PackMapFamilyParams {
  pack: string;
  oid: string;
}

export interface PackMapFamilyResult {
  root: string;
  members: number;
  /** Offsets of the members drawn, in pack order (at most 20,000: `truncated`). */
  memberOffsets: number[];
  /** [delta offset, base offset] per delta drawn. */
  arcs: [number, number][];
  /** Deltas whose base is in another pack (no arc). */
  externalBases: number;
  truncated: boolean;
}

/** A recording's reads of the pack as a path over the map (src/core/map/seek-path.ts). */
export interface PackMapSeeksParams extends WorkDoneProgressParams {
  pack: string;
  recording: string;
  segment?: number;
  /** The cold page cache whose faults are marked, as packscope/locality's (256 MiB, 128 KiB by default). */
  cacheMiB?: number;
  readaheadKiB?: number;
}

/** The seek path (core/map/seek-path.ts) without its pack (the request names it), and the page cache replayed. */
export type PackMapSeeksResult = Omit<SeekPath, 'pack'> & { pageCache: PageCacheOptions };

export const PackMapInfoRequest = new RequestType<PackParams, PackMapInfoResult, void>('packscope/packMapInfo');
export const PackMapFamilyRequest = new RequestType<PackMapFamilyParams, PackMapFamilyResult, void>(
  'packscope/packMapFamily',
);
export const PackMapSeeksRequest = new RequestType<PackMapSeeksParams, PackMapSeeksResult, void>(
  'packscope/packMapSeeks',
);
export const PackMapTileRequest = new RequestType<PackMapTileParams, PackMapTileResult, void>('packscope/packMapTile');
export const PackMapObjectAtRequest = new RequestType<PackMapObjectAtParams, PackMapObjectAtResult, void>(
  'packscope/packMapObjectAt',
);
