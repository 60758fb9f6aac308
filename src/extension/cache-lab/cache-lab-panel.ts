import { errorMessage } from '../../common/error-message.ts';
import { randomUUID } from 'node:crypto';
import * as path from 'node:path';
import vscode = require('vscode');
import type { RequestParam, RequestType } from 'vscode-languageserver-protocol';
import {
  CACHE_LAB_PROTOCOL_VERSION,
  GIT_DEFAULT_LIMIT,
  isWebviewToHost,
  type AnalysisRequest,
  type CacheLabJob,
  type CacheLabState,
  type HostToWebview,
  type LocalitySlot,
  type RecordingChoice,
  type WebviewToHost,
} from '../../protocol/cache-lab-protocol.ts';
import {
  AllowReadRequest,
  CompleteRecordingRequest,
  IndexPackSimRequest,
  LocalityRequest,
  MeasureRequest,
  RecordingInfoRequest,
  SweepRequest,
  type IndexPackSimResult,
  type SweepResult,
} from '../../protocol/server-protocol.ts';
import { formatLimit } from '../../common/format.ts';
import { gitCommandLine } from '../../common/shell-words.ts';
import { normalizeCacheLabState } from '../../presentation/cache-lab-state.ts';
import type { GitLocation } from '../git-locator.ts';
import { isCancellation } from '../model-progress.ts';
import { type ServerClient } from '../server-client.ts';
import { PanelHost } from '../webview-panel.ts';
import { readSidecar, SIDECAR_VERSION, writeSidecar } from '../recording-sidecar.ts';
import { WEBVIEW_PANELS } from '../webview-panels.ts';
import { checkedMeasurePlan, MEASURE_RUN, MEASURE_WITH_KEPT_HEAP, measureConfirmation } from './measure-plan.ts';

export interface CacheLabPanelDependencies {
  extensionUri: vscode.Uri;
  server: ServerClient;
  output: vscode.LogOutputChannel;
  gitLocation: Promise<GitLocation>;
  listRecordings(): RecordingChoice[];
  /** The policies offered as checkboxes, from the server's table (packscope/policies). */
  availablePolicies: readonly string[];
  /** The file dialog for "Choose file…". */
  chooseRecordingFile(): Promise<string | undefined>;
  /** Told each finished sweep (the Recordings view shows the last one on the recording's row). */
  onSweep?(file: string, segment: number | null | undefined, result: SweepResult): void;
}

const JOB_TITLES: Record<CacheLabJob, string> = {
  recordingInfo: 'reading the recording',
  sweep: 'sweeping',
  indexPack: 'simulating index-pack',
  locality: 'measuring locality',
  timeEstimate: 'estimating time',
  measure: 'measuring for real',
  complete: 'completing the recording',
};

/** The modal's one button that starts a completion. */
const COMPLETE_RUN = 'Complete';

class JobCancelled extends Error {}

/**
 * One Cache Lab panel: its webview, its state (what the webview's setState holds, mirrored here so
 * that the serializer and the tests can read it), and the server requests its Run and Measure
 * buttons start, each with a cancellation token the webview's Cancel buttons cancel.
 */
export class CacheLabPanel extends PanelHost<HostToWebview, WebviewToHost> {
  private stateValue: CacheLabState;
  /** The allowRead requests sent so far (allowRead). */
  private allowed: Promise<void> = Promise.resolve();
  private autoRunPending: boolean;
  private readonly runs = new Map<string, { source: vscode.CancellationTokenSource; jobs: CacheLabJob[] }>();
  /** The latest result of each kind, sent again when the webview (re)loads. */
  private readonly latest = new Map<string, HostToWebview>();

  constructor(
    panel: vscode.WebviewPanel,
    private readonly deps: CacheLabPanelDependencies,
    state: CacheLabState,
    autoRun: boolean,
  ) {
    super(panel, {
      extensionUri: deps.extensionUri,
      page: WEBVIEW_PANELS.cacheLab,
      output: deps.output,
      logName: 'Cache Lab',
      accepts: isWebviewToHost,
    });
    this.stateValue = state;
    // A panel opens on a recording the user chose (a command, the quick pick, a restored panel's).
    this.allowRead(state.recording);
    this.allowRead(state.compareRecording);
    this.autoRunPending = autoRun && state.recording !== null;
    this.updateTitle();
  }

  get state(): CacheLabState {
    return this.stateValue;
  }

  /** The last message of a type the webview was sent (`sweep`, `locality`, …). */
  lastPosted<T extends HostToWebview['type']>(type: T): Extract<HostToWebview, { type: T }> | undefined {
    for (let i = this.posted.length - 1; i >= 0; i--) {
      const message = this.posted[i]!;
      if (message.type === type) return message as Extract<HostToWebview, { type: T }>;
    }
    return undefined;
  }

  /** Points the panel at a recording (the command's argument) and replays it. */
  openRecording(file: string, segment: number | undefined, tab: CacheLabState['tab'] | undefined): void {
    this.stateValue = {
      ...this.stateValue,
      recording: file,
      segment: segment ?? null,
      tab: tab ?? this.stateValue.tab,
    };
    this.allowRead(file);
    this.updateTitle();
    this.panel.reveal();
    if (!this.ready) {
      this.autoRunPending = true;
      return;
    }
    this.send({ type: 'state', state: this.stateValue });
    void this.runFromHost();
  }

  /**
   * README "Trust and safety": the server reads a recording outside its storage and the workspace only
   * when told the user picked it (packscope/allowRead). Every request of the panel waits for these.
   */
  private allowRead(file: string | null): void {
    if (file === null || file === '') return;
    this.allowed = this.allowed.then(async () => {
      try {
        await this.deps.server.whenRunning();
        await this.deps.server.request(AllowReadRequest, { file });
      } catch (error) {
        // A file that is gone: the request on it says so.
        this.deps.output.error(`Cache Lab: ${AllowReadRequest.method} ${file} failed: ${errorMessage(error)}`);
      }
    });
  }

  refreshRecordings(): void {
    if (this.ready) this.send({ type: 'recordings', recordings: this.deps.listRecordings() });
  }

  override dispose(): void {
    if (this.isDisposed) return;
    for (const run of this.runs.values()) run.source.cancel();
    super.dispose();
  }

  private updateTitle(): void {
    const recording = this.stateValue.recording;
    // The recording's one name (the Recordings view's, recordingName), else its file's.
    const name =
      recording === null
        ? undefined
        : (this.deps.listRecordings().find((choice) => choice.file === recording)?.label ?? path.basename(recording));
    this.panel.title = name === undefined ? 'Cache Lab' : `Cache Lab: ${name}`;
  }

  private newRunId(): string {
    return `host-${randomUUID()}`;
  }

  /** A run the host starts (opening on a recording): no request waits for it, so its end is a notification. */
  private async runFromHost(): Promise<void> {
    const runId = this.newRunId();
    const outcome = await this.runAnalysis(runId, this.analysisRequest());
    if (outcome !== undefined) this.messages.notify({ type: 'runEnded', runId, outcome });
  }

  private analysisRequest(): AnalysisRequest {
    const s = this.stateValue;
    return {
      file: s.recording ?? '',
      segment: s.segment,
      limits: s.limits,
      policies: s.policies,
      compareRecording: s.compareRecording,
    };
  }

  protected send(message: HostToWebview): void {
    switch (message.type) {
      case 'recordingInfo':
      case 'locality':
        this.latest.set(`${message.type}:${message.slot}`, message);
        break;
      case 'sweep':
      case 'indexPack':
      case 'measure':
        this.latest.set(message.type, message);
        break;
      default:
        break;
    }
    this.deliver(message);
  }

  /** What it returns answers the webview's request (CacheLabReplies). */
  protected async onMessage(message: WebviewToHost): Promise<HostToWebview | undefined> {
    switch (message.type) {
      case 'ready': {
        this.pageReady(message.version, CACHE_LAB_PROTOCOL_VERSION);
        this.send({
          type: 'init',
          version: CACHE_LAB_PROTOCOL_VERSION,
          state: this.stateValue,
          recordings: this.deps.listRecordings(),
          availablePolicies: [...this.deps.availablePolicies],
        });
        for (const result of this.latest.values()) this.send(result);
        for (const [runId, run] of this.runs) this.send({ type: 'runStarted', runId, jobs: run.jobs });
        if (this.autoRunPending) {
          this.autoRunPending = false;
          await this.runFromHost();
        }
        return undefined;
      }
      case 'stateChanged':
        this.stateValue = normalizeCacheLabState(message.state, this.deps.availablePolicies);
        // A recording picked from the list this host offered (the storage's, the CLI's) is the user's choice.
        for (const file of [this.stateValue.recording, this.stateValue.compareRecording]) {
          if (this.deps.listRecordings().some((choice) => choice.file === file)) this.allowRead(file);
        }
        this.updateTitle();
        return undefined;
      case 'run': {
        const outcome = await this.runAnalysis(message.runId, message.request);
        return outcome === undefined ? undefined : { type: 'runEnded', runId: message.runId, outcome };
      }
      case 'measure': {
        const { outcome } = await this.runMeasure(
          message.runId,
          message.file,
          message.segment,
          message.limits,
          message.runs,
          undefined,
        );
        return { type: 'runEnded', runId: message.runId, outcome };
      }
      case 'complete': {
        const outcome = await this.runComplete(message.runId, message.file, message.limits);
        return { type: 'runEnded', runId: message.runId, outcome };
      }
      case 'cancel':
        this.runs.get(message.runId)?.source.cancel();
        return undefined;
      case 'browseRecording': {
        const file = await this.deps.chooseRecordingFile();
        if (file !== undefined) {
          this.allowRead(file);
          this.stateValue =
            message.slot === 'primary'
              ? { ...this.stateValue, recording: file, segment: null }
              : { ...this.stateValue, compareRecording: file };
          this.updateTitle();
        }
        return { type: 'state', state: this.stateValue };
      }
      case 'copy':
        await vscode.env.clipboard.writeText(message.text);
        vscode.window.setStatusBarMessage(
          `Copied the sweep table as ${message.format === 'markdown' ? 'Markdown' : 'text'}.`,
          3000,
        );
        return undefined;
    }
  }

  /**
   * Run: the sweep, index-pack for each pack the recording read, and locality (of both recordings).
   * Undefined when there is no recording to run on.
   */
  // Stays long: one run's jobs in the order the panel shows them, sharing the run's id and cancellation.
  private async runAnalysis(runId: string, request: AnalysisRequest): Promise<RunOutcome | undefined> {
    if (request.file === '') return undefined;
    // The time estimate calibrates by timing git on the pack (git reads the repository's config),
    // so only in a trusted workspace, as Measure for real.
    const time = vscode.workspace.isTrusted;
    const jobs: CacheLabJob[] = time
      ? ['sweep', 'indexPack', 'locality', 'timeEstimate']
      : ['sweep', 'indexPack', 'locality'];
    const sweepRequest = { limits: request.limits, policies: request.policies };
    const { outcome } = await this.withRun(runId, jobs, async (job) => {
      const segment = request.segment ?? undefined;
      // Counts first: a first calibration on a big pack takes tens of seconds, and the sweep's own
      // table, index-pack and locality do not wait for it; the time view comes last.
      const sweep = await job('sweep', (progress) =>
        this.request(
          runId,
          'sweep',
          SweepRequest,
          { file: request.file, segment, ...sweepRequest, time: false },
          progress,
        ),
      );
      if (sweep !== undefined && !time)
        sweep.timeError = 'No time estimate in an untrusted workspace: it calibrates by timing git on the pack.';
      if (sweep !== undefined) {
        this.send({
          type: 'sweep',
          runId,
          request: sweepRequest,
          result: sweep,
          ...(time ? { timePending: true } : {}),
        });
        this.deps.onSweep?.(request.file, segment, sweep);
      }
      const packs =
        sweep?.recording.packs ??
        (
          await job('recordingInfo', (progress) =>
            this.request(runId, 'recordingInfo', RecordingInfoRequest, { file: request.file, segment }, progress),
          )
        )?.packs ??
        [];
      const indexPack = await job('indexPack', async (progress) => {
        const results: IndexPackSimResult[] = [];
        for (const pack of packs)
          results.push(
            await this.request(
              runId,
              'indexPack',
              IndexPackSimRequest,
              { pack: pack.path, limit: GIT_DEFAULT_LIMIT },
              progress,
            ),
          );
        return results;
      });
      if (indexPack !== undefined) this.send({ type: 'indexPack', runId, results: indexPack });
      const slots: [LocalitySlot, string, number | undefined][] = [['primary', request.file, segment]];
      if (request.compareRecording !== null) slots.push(['compare', request.compareRecording, undefined]);
      for (const [slot, file, seg] of slots) {
        const locality = await job('locality', (progress) =>
          this.request(runId, 'locality', LocalityRequest, { file, segment: seg }, progress),
        );
        if (locality !== undefined) this.send({ type: 'locality', runId, slot, result: locality });
      }
      if (time && sweep !== undefined) {
        // replay: the recording's own reads timed on git once (kept with the calibration), for the size of the read time.
        const timed = await job('timeEstimate', (progress) =>
          this.request(
            runId,
            'timeEstimate',
            SweepRequest,
            { file: request.file, segment, ...sweepRequest, time: true, replay: true },
            progress,
          ),
        );
        if (timed !== undefined) this.send({ type: 'sweep', runId, request: sweepRequest, result: timed });
      }
    });
    return outcome;
  }

  /**
   * Measure for real on the panel's recording and segment, as the webview's button does. For the
   * extension tests (`api.cacheLab.measure`): `confirmed: true` skips the modal confirmation, which
   * nothing else can (no setting, no webview message).
   */
  async measure(
    options: { limits?: number[]; runs?: number; confirmed?: boolean; keptHeap?: boolean } = {},
  ): Promise<MeasureOutcome> {
    const state = this.stateValue;
    if (state.recording === null) return { outcome: 'failed', errors: ['no recording is open'] };
    const runId = this.newRunId();
    const measured = await this.runMeasure(
      runId,
      state.recording,
      state.segment,
      options.limits ?? state.limits,
      options.runs ?? state.measureRuns,
      options.confirmed === true ? { keptHeap: options.keptHeap === true } : undefined,
    );
    this.messages.notify({ type: 'runEnded', runId, outcome: measured.outcome });
    return measured;
  }

  /** Measure for real: only ever started by the webview's button, and only after the user confirms. */
  private async runMeasure(
    runId: string,
    file: string,
    segment: number | null,
    limits: number[],
    runs: number,
    confirmed: { keptHeap: boolean } | undefined,
  ): Promise<MeasureOutcome> {
    let posted: MeasureMessage | undefined;
    const { outcome, errors } = await this.withRun(runId, ['measure'], async (job) => {
      await job('measure', async (progress) => {
        // Opened whole (no segment): the plan needs every segment's command.
        const info = await this.request(runId, 'recordingInfo', RecordingInfoRequest, { file }, progress);
        const plan = checkedMeasurePlan(info, segment, vscode.workspace.isTrusted);
        if ('refusal' in plan) throw new Error(plan.refusal);
        const command = gitCommandLine(plan.args);
        const location = await this.deps.gitLocation;
        const git = location.found ? location.path : 'git';
        let keptHeap = confirmed?.keptHeap ?? false;
        if (!confirmed) {
          const origin = this.deps.listRecordings().some((choice) => choice.file === file) ? 'storage' : 'opened';
          const { message, detail } = measureConfirmation(plan, { file, origin, limits: limits.length, runs });
          const choice = await vscode.window.showWarningMessage(
            message,
            { modal: true, detail },
            MEASURE_RUN,
            MEASURE_WITH_KEPT_HEAP,
          );
          if (choice !== MEASURE_RUN && choice !== MEASURE_WITH_KEPT_HEAP) throw new JobCancelled();
          keptHeap = choice === MEASURE_WITH_KEPT_HEAP;
        }
        // The recording goes along only when its own command is what runs: the split kept is then this command's.
        const recording = plan.reconstructed ? {} : { recording: { file, ...(segment === null ? {} : { segment }) } };
        const result = await this.request(
          runId,
          'measure',
          MeasureRequest,
          { cwd: plan.cwd, args: plan.args, git, limits, runs, ...recording, ...(keptHeap ? { keptHeap } : {}) },
          progress,
        );
        posted = {
          type: 'measure',
          runId,
          command,
          args: plan.args,
          cwd: plan.cwd,
          reconstructed: plan.reconstructed,
          result,
        };
        this.send(posted);
        return result;
      });
    });
    return { outcome, errors, ...(posted ? { message: posted } : {}) };
  }

  /**
   * Completes the recording at `limits` (packscope/completeRecording: its own command run again,
   * asked first since it runs git), then points the panel at the completed recording and runs it:
   * its cells are exact at those limits.
   */
  private async runComplete(runId: string, file: string, limits: number[]): Promise<RunOutcome> {
    let completed: string | undefined;
    const { outcome } = await this.withRun(runId, ['complete'], async (job) => {
      await job('complete', async (progress) => {
        const info = await this.request(runId, 'complete', RecordingInfoRequest, { file }, progress);
        if (info.args === null || info.cwd === null)
          throw new Error('a terminal recording has no single command to run again: completion needs packscope record');
        const at = limits.map(formatLimit).join(', ');
        const choice = await vscode.window.showWarningMessage(
          `Complete the recording at ${at}?`,
          {
            modal: true,
            detail: `This runs ${gitCommandLine(info.args)} ${limits.length + 1} times in ${info.cwd} (at core.deltaBaseCacheLimit 0 and ${at}) and writes the completed recording beside this one.`,
          },
          COMPLETE_RUN,
        );
        if (choice !== COMPLETE_RUN) throw new JobCancelled();
        const location = await this.deps.gitLocation;
        const git = location.found ? location.path : 'git';
        const done = await this.request(runId, 'complete', CompleteRecordingRequest, { file, limits, git }, progress);
        completed = done.file;
        // The original's sidecar (its name, repository, command) carried over, with the limits it is now complete at.
        writeSidecar(done.file, {
          ...(readSidecar(file) ?? {
            version: SIDECAR_VERSION,
            source: 'command',
            mode: 'exact',
            recordedLimit: done.recordedLimit,
            startedAt: done.startedAt ?? new Date().toISOString(),
            args: info.args,
          }),
          ...(done.completeAt !== null ? { completeAt: done.completeAt } : {}),
        });
      });
    });
    if (completed !== undefined) {
      this.stateValue = { ...this.stateValue, recording: completed, segment: null };
      this.updateTitle();
      this.send({ type: 'state', state: this.stateValue });
      this.refreshRecordings();
      await this.runFromHost();
    }
    return outcome;
  }

  /**
   * Runs the jobs of one run under one window progress and one cancellation token; each job ends
   * with a `jobEnded` message, a cancellation ends the run, a failure only its job. The caller
   * posts the `runEnded` (a reply to the webview's request, or a notification).
   */
  private async withRun(
    runId: string,
    jobs: CacheLabJob[],
    body: (
      job: <R>(
        name: CacheLabJob,
        work: (progress: vscode.Progress<{ message?: string }>) => Promise<R>,
      ) => Promise<R | undefined>,
    ) => Promise<void>,
  ): Promise<{ outcome: RunOutcome; errors: string[] }> {
    const source = new vscode.CancellationTokenSource();
    this.runs.set(runId, { source, jobs });
    this.send({ type: 'runStarted', runId, jobs });
    let outcome: RunOutcome = 'done';
    const errors: string[] = [];
    try {
      await vscode.window.withProgress(
        { location: vscode.ProgressLocation.Window, title: 'Cache Lab' },
        async (progress) => {
          const job = async <R>(
            name: CacheLabJob,
            work: (progress: vscode.Progress<{ message?: string }>) => Promise<R>,
          ): Promise<R | undefined> => {
            if (source.token.isCancellationRequested) throw new JobCancelled();
            progress.report({ message: JOB_TITLES[name] });
            try {
              const result = await work(progress);
              this.send({ type: 'jobEnded', runId, job: name, outcome: 'done' });
              return result;
            } catch (error) {
              if (error instanceof JobCancelled || isCancellation(error) || source.token.isCancellationRequested) {
                this.send({ type: 'jobEnded', runId, job: name, outcome: 'cancelled' });
                throw new JobCancelled();
              }
              outcome = 'failed';
              errors.push(errorMessage(error));
              this.deps.output.warn(`Cache Lab: ${JOB_TITLES[name]} failed: ${errorMessage(error)}`);
              this.send({ type: 'jobEnded', runId, job: name, outcome: 'failed', error: errorMessage(error) });
              return undefined;
            }
          };
          await body(job);
        },
      );
    } catch (error) {
      if (error instanceof JobCancelled) outcome = 'cancelled';
      else {
        outcome = 'failed';
        errors.push(errorMessage(error));
        this.deps.output.error(`Cache Lab: ${errorMessage(error)}`);
      }
    } finally {
      this.runs.delete(runId);
      source.dispose();
    }
    return { outcome, errors };
  }

  /** A server request with its own `$/progress` token, forwarded to the webview and the window's progress. */
  private async request<P extends { workDoneToken?: string | number }, R>(
    runId: string,
    job: CacheLabJob,
    type: RequestType<P, R, void>,
    params: Omit<P, 'workDoneToken'>,
    progress: vscode.Progress<{ message?: string }>,
  ): Promise<R> {
    const run = this.runs.get(runId);
    if (run === undefined || run.source.token.isCancellationRequested) throw new JobCancelled();
    await this.deps.server.whenRunning();
    await this.allowed;
    const workDoneToken = `packscope-cache-lab-${randomUUID()}`;
    let title = JOB_TITLES[job];
    const subscription = this.deps.server.onWorkDoneProgress(workDoneToken, (value) => {
      if (value.kind === 'end') return;
      if (value.kind === 'begin') title = value.title;
      const message = value.message ?? title;
      this.send({ type: 'progress', runId, job, message, percentage: value.percentage });
      progress.report({ message: `${JOB_TITLES[job]}: ${message}` });
    });
    try {
      return await this.deps.server.request(
        type,
        { ...params, workDoneToken } as unknown as RequestParam<P>,
        run.source.token,
      );
    } finally {
      subscription.dispose();
    }
  }
}

type MeasureMessage = Extract<HostToWebview, { type: 'measure' }>;

type RunOutcome = Extract<HostToWebview, { type: 'runEnded' }>['outcome'];

/** How a Measure for real ended: the message posted to the webview when it ran, else why not. */
export interface MeasureOutcome {
  outcome: RunOutcome;
  /** Why jobs failed (also posted as `jobEnded`). */
  errors: string[];
  message?: MeasureMessage;
}
