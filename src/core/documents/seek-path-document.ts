/** A recording's reads of one pack as the Pack Map draws them (core/map/seek-path.ts makes it; packscope/packMapSeeks sends it). */
import type { PackLocality } from './simulation-documents.ts';

export interface SeekPath {
  pack: string;
  /** Reads of the pack in the recording. */
  reads: number;
  /** 1: every read is a point; k: every k-th read (and the last). */
  stride: number;
  /** Offsets of the points, in read order. */
  offsets: number[];
  /** Indices into `offsets` of points whose reads faulted in the cold page cache. */
  faults: number[];
  /** Seeks between consecutive reads (reads − 1), of which backward. */
  seeks: number;
  backwardSeeks: number;
  locality: PackLocality;
}
