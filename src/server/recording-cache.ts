// The last recording the server opened, kept while its packs are unchanged: the Cache Lab asks for
// a recording's info, its sweep, its locality and index-pack one after another.
import * as fs from 'node:fs';
import type { LocalityInput } from '../core/locality/locality.ts';
import type { RecordingInfo } from '../core/documents/recording-document.ts';
import type { LoadedRecording } from '../core/trace/load-recording.ts';

export interface OpenedRecording {
  loaded: LoadedRecording;
  info: RecordingInfo;
  /** Per pack, the offsets and entry sizes of the kept reads (as the CLI gathers them for locality), gathered by the worker. */
  locality: LocalityInput[];
}

/** The last recording opened, reused while the file and the packs it maps to are unchanged. */
export class RecordingCache {
  private last: { key: string; opened: OpenedRecording } | undefined;

  get(key: string): OpenedRecording | undefined {
    return this.last && this.last.key === key && stillCurrent(this.last.opened) ? this.last.opened : undefined;
  }

  set(key: string, opened: OpenedRecording): void {
    this.last = { key, opened };
  }

  clear(): void {
    this.last = undefined;
  }
}

function stillCurrent(opened: OpenedRecording): boolean {
  return opened.loaded.resolved.packs.every((p) => {
    try {
      return fs.statSync(p.location.files.pack).mtimeMs === p.location.mtimeMs && fs.existsSync(p.location.files.idx);
    } catch {
      return false;
    }
  });
}
