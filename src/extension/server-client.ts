import { errorMessage } from '../common/error-message.ts';
import vscode = require('vscode');
import type {
  LanguageClient,
  CloseHandlerResult,
  ErrorHandler,
  ErrorHandlerResult,
  LanguageClientOptions,
  ServerOptions,
  WorkDoneProgressBegin,
  WorkDoneProgressEnd,
  WorkDoneProgressReport,
} from 'vscode-languageclient/node';
import type { RequestParam, RequestType } from 'vscode-languageserver-protocol';
import {
  CancelLoadsNotification,
  ConfigureNotification,
  LoadProgressNotification,
  OBJECT_DOCUMENT_SCHEME,
  PacksChangedNotification,
  type InitializationOptions,
  type LoadProgressParams,
  type PacksChangedParams,
  type ServerSettings,
} from '../protocol/server-protocol.ts';
import { SERVER_PROCESS_ENVIRONMENT } from '../protocol/server-process.ts';
import { Disposable, Lifetime } from './dispose.ts';
import { RestartBackoff } from './restart-backoff.ts';

/**
 * vscode-languageclient is most of the extension's code; loading it at activation cost more than the
 * 100 ms budget allows, so it is its own bundle (dist/language-client.js, scripts/build.mjs), loaded
 * when the server first starts. Messages are sent by method name, so the protocol's RequestType
 * objects need not be that bundle's own classes.
 */
// eslint-disable-next-line @typescript-eslint/consistent-type-imports -- the type of a bundle loaded lazily, on purpose
function languageClientLibrary(): typeof import('vscode-languageclient/node') {
  // eslint-disable-next-line @typescript-eslint/no-require-imports, @typescript-eslint/consistent-type-imports -- loaded when the server first starts (see above)
  return require('./language-client.js') as typeof import('vscode-languageclient/node');
}

export type WorkDoneValue = WorkDoneProgressBegin | WorkDoneProgressReport | WorkDoneProgressEnd;

/**
 * Text documents whose object ids get hovers. `packscope:` object documents are included so that the
 * ids of a chain can be hovered too; `git:` covers the Git extension's diff and history views.
 * Output channels are left out: their text is not the user's and changes on every line.
 */
const HOVER_DOCUMENTS = [
  { scheme: 'file' },
  { scheme: 'untitled' },
  { scheme: 'git' },
  { scheme: 'vscode-notebook-cell' },
  { scheme: OBJECT_DOCUMENT_SCHEME },
];

interface Deferred {
  promise: Promise<void>;
  resolve(): void;
  reject(error: Error): void;
}

function deferred(): Deferred {
  let resolve!: () => void;
  let reject!: (error: Error) => void;
  const promise = new Promise<void>((onResolve, onReject) => {
    resolve = onResolve;
    reject = onReject;
  });
  // A start nobody waits for must not surface as an unhandled rejection.
  promise.catch(() => undefined);
  return { promise, resolve, reject };
}

export interface ServerClientOptions {
  serverModule: string;
  output: vscode.LogOutputChannel;
  settings: () => ServerSettings;
  /** The only directory the server may write recordings into (the extension's storage). */
  recordingDirectory: string;
  hoverEnabled: () => boolean;
}

/**
 * Owns the language client: starts it on first use, restarts a crashed server with back-off (one
 * notification per session), and gives typed requests that wait for a running server. What hangs
 * on the client itself (its notification and state handlers) lives in `clientLifetime`, disposed
 * before the client; the emitters live as long as this object.
 */
export class ServerClient extends Disposable {
  private client: LanguageClient | undefined;
  private clientLifetime: Lifetime | undefined;
  private starting: Deferred | undefined;
  private restartTimer: NodeJS.Timeout | undefined;
  private startInFlight = false;
  private crashNotified = false;
  private readonly backoff = new RestartBackoff();
  private readonly packsChanged = this._register(new vscode.EventEmitter<PacksChangedParams>());
  private readonly loadProgress = this._register(new vscode.EventEmitter<LoadProgressParams>());
  private readonly stateChanged = this._register(new vscode.EventEmitter<boolean>());
  private readonly firstStart = deferred();

  /** Server → client `packscope/packsChanged`. */
  readonly onPacksChanged = this.packsChanged.event;
  /** Server → client `packscope/loadProgress`: how far a background (warm-up) build is. */
  readonly onLoadProgress = this.loadProgress.event;
  /** Fires true when the server is running, false when it stopped. */
  readonly onDidChangeRunning = this.stateChanged.event;
  /** Settles when the server has started for the first time (rejects when it never could). */
  readonly ready = this.firstStart.promise;

  constructor(private readonly options: ServerClientOptions) {
    super();
  }

  get isRunning(): boolean {
    return this.client?.isRunning() ?? false;
  }

  /** Starts the server when it is not running (or waits for the start under way). */
  whenRunning(): Promise<void> {
    if (this.isDisposed) return Promise.reject(new Error('PackScope is shutting down'));
    if (this.client?.isRunning() === true) return Promise.resolve();
    const starting = (this.starting ??= deferred());
    if (this.restartTimer === undefined && !this.startInFlight) void this.startNow();
    return starting.promise;
  }

  async request<P, R>(
    type: RequestType<P, R, void>,
    params: RequestParam<P>,
    token?: vscode.CancellationToken,
  ): Promise<R> {
    await this.whenRunning();
    const client = this.requireClient();
    return token === undefined
      ? client.sendRequest<R>(type.method, params)
      : client.sendRequest<R>(type.method, params, token);
  }

  /** Subscribes to `$/progress` for a work-done token put in a request's params. */
  onWorkDoneProgress(token: string, handler: (value: WorkDoneValue) => void): vscode.Disposable {
    return this.requireClient().onProgress(languageClientLibrary().WorkDoneProgress.type, token, handler);
  }

  configure(settings: ServerSettings): void {
    if (this.client?.isRunning() !== true) {
      // The next start reads the settings afresh; one under way has read them already: they follow it.
      if (this.startInFlight)
        this.whenRunning().then(
          () => this.configure(this.options.settings()),
          () => undefined,
        );
      return;
    }
    this.client.sendNotification(ConfigureNotification.method, settings).catch((error: unknown) => {
      this.options.output.error(`packscope/configure failed: ${errorMessage(error)}`);
    });
  }

  /** `packscope.cancelLoad`: the server stops the builds no request owns (the warm-up). */
  cancelLoads(): void {
    if (this.client?.isRunning() !== true) return;
    this.client.sendNotification(CancelLoadsNotification.method, {}).catch((error: unknown) => {
      this.options.output.error(`packscope/cancelLoads failed: ${errorMessage(error)}`);
    });
  }

  /** `packscope.restartServer`: a new process now, and a fresh back-off streak. */
  async restart(): Promise<void> {
    this.backoff.reset();
    this.clearRestartTimer();
    const client = this.client;
    if (client !== undefined && client.needsStop()) {
      this.options.output.info('Restarting the PackScope server.');
      await client
        .stop()
        .catch((error: unknown) => this.options.output.warn(`Stopping the server failed: ${errorMessage(error)}`));
    }
    await this.whenRunning();
  }

  /** Stops the server (settles when it has stopped, or after 2 s); `deactivate` waits for it. */
  override async dispose(): Promise<void> {
    if (this.isDisposed) return;
    super.dispose();
    this.clearRestartTimer();
    this.starting?.reject(new Error('PackScope is shutting down'));
    this.starting = undefined;
    const client = this.client;
    this.client = undefined;
    this.clientLifetime?.dispose();
    this.clientLifetime = undefined;
    if (client !== undefined) await client.dispose(2000).catch(() => undefined);
  }

  private requireClient(): LanguageClient {
    if (this.client === undefined) throw new Error('The PackScope server is not started');
    return this.client;
  }

  private async startNow(): Promise<void> {
    if (this.isDisposed) return;
    const client = (this.client ??= this.createClient());
    this.backoff.noteStart(Date.now());
    this.startInFlight = true;
    try {
      const startedAt = performance.now();
      await client.start();
      this.options.output.info(`PackScope server started in ${Math.round(performance.now() - startedAt)} ms.`);
      this.starting?.resolve();
      this.starting = undefined;
      this.firstStart.resolve();
      this.stateChanged.fire(true);
    } catch (error) {
      this.options.output.error(`The PackScope server did not start: ${errorMessage(error)}`);
      this.scheduleRestart(`it did not start (${errorMessage(error)})`);
    } finally {
      this.startInFlight = false;
    }
  }

  private createClient(): LanguageClient {
    const { LanguageClient, RevealOutputChannelOn, TransportKind } = languageClientLibrary();
    const serverOptions: ServerOptions = {
      run: {
        module: this.options.serverModule,
        transport: TransportKind.ipc,
        options: { env: SERVER_PROCESS_ENVIRONMENT },
      },
      debug: {
        module: this.options.serverModule,
        transport: TransportKind.ipc,
        options: { execArgv: ['--nolazy', '--inspect=6019'], env: SERVER_PROCESS_ENVIRONMENT },
      },
    };
    const clientOptions: LanguageClientOptions = {
      documentSelector: HOVER_DOCUMENTS,
      outputChannel: this.options.output,
      revealOutputChannelOn: RevealOutputChannelOn.Never,
      initializationOptions: (): InitializationOptions => ({
        settings: this.options.settings(),
        recordingDirectory: this.options.recordingDirectory,
      }),
      errorHandler: this.createErrorHandler(),
      // The hover's "Reveal in Packs view" / "Open object" links run these two commands, no others.
      markdown: { isTrusted: { enabledCommands: ['packscope.revealObject', 'packscope.openObject'] } },
      middleware: {
        provideHover: (document, position, token, next) =>
          this.options.hoverEnabled() ? next(document, position, token) : undefined,
      },
    };
    const client = new LanguageClient('packscope', 'PackScope', serverOptions, clientOptions);
    const lifetime = (this.clientLifetime = new Lifetime());
    lifetime.register(
      client.onNotification(PacksChangedNotification.method, (params: PacksChangedParams) =>
        this.packsChanged.fire(params),
      ),
    );
    lifetime.register(
      client.onNotification(LoadProgressNotification.method, (params: LoadProgressParams) =>
        this.loadProgress.fire(params),
      ),
    );
    lifetime.register(
      client.onDidChangeState(() => {
        if (!client.isRunning()) this.stateChanged.fire(false);
      }),
    );
    return client;
  }

  private createErrorHandler(): ErrorHandler {
    const { CloseAction, ErrorAction } = languageClientLibrary();
    return {
      error: (error, _message, count): ErrorHandlerResult => {
        if (count !== undefined && count > 3) {
          this.scheduleRestart(`its connection kept failing (${error.message})`);
          return { action: ErrorAction.Shutdown, handled: true };
        }
        return {
          action: ErrorAction.Continue,
          handled: true,
          message: `PackScope server connection error: ${error.message}`,
        };
      },
      // The library's own restart (4 times in 3 minutes, at once) is replaced by scheduleRestart's back-off.
      closed: (): CloseHandlerResult => {
        const delay = this.scheduleRestart('it stopped unexpectedly');
        return {
          action: CloseAction.DoNotRestart,
          handled: true,
          message:
            delay === undefined
              ? 'The PackScope server stopped.'
              : `The PackScope server stopped; restarting in ${delay / 1000} s.`,
        };
      },
    };
  }

  /** Returns the delay chosen, or undefined when no restart follows. */
  private scheduleRestart(reason: string): number | undefined {
    if (this.isDisposed) return undefined;
    if (this.restartTimer !== undefined) return undefined; // one crash, two reports (close and failed start)
    const delay = this.backoff.noteCrash(Date.now());
    if (delay === undefined) {
      const message = `The PackScope server stopped ${this.backoff.crashes} times in a row; it is not restarted again. Last: ${reason}.`;
      this.options.output.error(message);
      this.starting?.reject(new Error(message));
      this.starting = undefined;
      this.firstStart.reject(new Error(message));
      void this.notifyGaveUp(message);
      return undefined;
    }
    this.options.output.warn(
      `The PackScope server stopped: ${reason}. Restart ${this.backoff.crashes} in ${delay} ms.`,
    );
    if (!this.crashNotified) {
      this.crashNotified = true;
      void this.notifyFirstCrash(reason);
    }
    this.starting ??= deferred();
    this.restartTimer = setTimeout(() => {
      this.restartTimer = undefined;
      void this.startNow();
    }, delay);
    return delay;
  }

  private clearRestartTimer(): void {
    if (this.restartTimer !== undefined) clearTimeout(this.restartTimer);
    this.restartTimer = undefined;
  }

  private async notifyFirstCrash(reason: string): Promise<void> {
    const showLog = 'Show Server Log';
    const choice = await vscode.window.showWarningMessage(
      `The PackScope server stopped: ${reason}. It is restarting.`,
      showLog,
    );
    if (choice === showLog) this.options.output.show(true);
  }

  private async notifyGaveUp(message: string): Promise<void> {
    const showLog = 'Show Server Log';
    const restart = 'Restart Server';
    const choice = await vscode.window.showErrorMessage(message, showLog, restart);
    if (choice === showLog) this.options.output.show(true);
    if (choice === restart) await this.restart().catch(() => undefined);
  }
}
