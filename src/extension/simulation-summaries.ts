/**
 * The last whole-recording sweep of each recording, kept in the workspace's state, so that the
 * Recordings view can say on a recording's row what its simulation found (recording-summary.ts).
 * A summary is dropped when its file changes (size or time): it describes that file's reads only.
 */
import * as fs from 'node:fs';
import vscode = require('vscode');
import { summarizeSweep, type SimulationSummary } from '../presentation/recording-summary.ts';
import type { SweepResult } from '../protocol/server-protocol.ts';
import { Disposable } from './dispose.ts';

const STATE_KEY = 'packscope.simulationSummaries';
/** Recordings remembered at most (the oldest go first). */
const MAX_KEPT = 200;

interface Kept {
  bytes: number;
  mtimeMs: number;
  summary: SimulationSummary;
}

export class SimulationSummaries extends Disposable {
  private readonly changeEmitter = this._register(new vscode.EventEmitter<void>());
  readonly onDidChange = this.changeEmitter.event;

  constructor(private readonly memento: vscode.Memento) {
    super();
  }

  /** A sweep the Cache Lab finished. One git process's sweep (a segment) is not the recording's: not kept. */
  remember(file: string, segment: number | null | undefined, result: SweepResult): void {
    if (segment !== null && segment !== undefined) return;
    const summary = summarizeSweep(result);
    const stat = fs.statSync(file, { throwIfNoEntry: false });
    if (summary === undefined || stat === undefined) return;
    const kept = { ...this.memento.get<Record<string, Kept>>(STATE_KEY, {}) };
    delete kept[file];
    kept[file] = { bytes: stat.size, mtimeMs: stat.mtimeMs, summary };
    const files = Object.keys(kept);
    for (const old of files.slice(0, Math.max(0, files.length - MAX_KEPT))) delete kept[old];
    void this.memento.update(STATE_KEY, kept);
    this.changeEmitter.fire();
  }

  /** The summary of `file` as it is now (its size and time as given), if its last sweep was of this content. */
  get(file: string, bytes: number, mtimeMs: number): SimulationSummary | undefined {
    const kept = this.memento.get<Record<string, Kept>>(STATE_KEY, {})[file];
    return kept !== undefined && kept.bytes === bytes && kept.mtimeMs === mtimeMs ? kept.summary : undefined;
  }
}
