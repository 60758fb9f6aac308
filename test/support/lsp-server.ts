/**
 * Drives the bundled server (dist/server.js) over plain LSP on stdio, the way any LSP client or
 * benchmark would: no VS Code, no mocks.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  createProtocolConnection,
  InitializeRequest,
  InitializedNotification,
  ResponseError,
  ExitNotification,
  ShutdownRequest,
  StreamMessageReader,
  StreamMessageWriter,
  WorkDoneProgress,
  type ProtocolConnection,
  type WorkDoneProgressBegin,
  type WorkDoneProgressEnd,
  type WorkDoneProgressReport,
} from 'vscode-languageserver-protocol/node';
import { projectRoot } from './git.ts';
import { PacksChangedNotification, type ServerSettings } from '../../src/protocol/server-protocol.ts';

export const serverPath = path.join(projectRoot, 'dist', 'server.js');

export type ProgressValue = WorkDoneProgressBegin | WorkDoneProgressReport | WorkDoneProgressEnd;

export class LspServer {
  readonly log: string[] = [];
  /** window/showMessage texts (warnings and errors the user would see). */
  readonly shown: string[] = [];
  readonly packsChanged: string[] = [];
  private changeWaiters: ((repository: string) => void)[] = [];
  private exited: Promise<number | null>;

  private constructor(
    readonly child: ChildProcessWithoutNullStreams,
    readonly connection: ProtocolConnection,
  ) {
    this.exited = new Promise((resolve) => child.on('exit', (code) => resolve(code)));
    connection.onNotification('window/logMessage', (params: { message: string }) => void this.log.push(params.message));
    connection.onNotification(
      'window/showMessage',
      (params: { message: string }) => void this.shown.push(params.message),
    );
    connection.onRequest('window/showMessageRequest', (params: { message: string }) => {
      this.shown.push(params.message);
      return null;
    });
    connection.onNotification(PacksChangedNotification, ({ repository }) => {
      this.packsChanged.push(repository);
      for (const waiter of this.changeWaiters.splice(0)) waiter(repository);
    });
    // Server-initiated progress (background indexing) asks the client to create a token first.
    connection.onRequest('window/workDoneProgress/create', () => null);
  }

  static async start(options: {
    workspaceFolders: string[];
    settings: Partial<ServerSettings>;
    env?: NodeJS.ProcessEnv;
    recordingDirectory?: string;
  }): Promise<LspServer> {
    const child = spawn(process.execPath, [serverPath, '--stdio'], { stdio: 'pipe', env: options.env ?? process.env });
    const stderr: string[] = [];
    child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk.toString()));
    const connection = createProtocolConnection(
      new StreamMessageReader(child.stdout),
      new StreamMessageWriter(child.stdin),
    );
    const server = new LspServer(child, connection);
    connection.listen();
    await connection.sendRequest(InitializeRequest.type, {
      processId: process.pid,
      rootUri: null,
      capabilities: { window: { workDoneProgress: true } },
      workspaceFolders: options.workspaceFolders.map((folder) => ({
        uri: pathToFileURL(folder).href,
        name: path.basename(folder),
      })),
      initializationOptions: {
        settings: {
          repositories: [],
          scanDepth: 1,
          modelCacheDirectory: '',
          persistModels: true,
          hoverIndexLimit: 5_000_000,
          git: 'git',
          ...options.settings,
        },
        ...(options.recordingDirectory === undefined ? {} : { recordingDirectory: options.recordingDirectory }),
      },
    });
    await connection.sendNotification(InitializedNotification.type, {});
    return server;
  }

  /** Collects the $/progress values reported for `token`. */
  progressFor(token: string): ProgressValue[] {
    const values: ProgressValue[] = [];
    this.connection.onProgress(WorkDoneProgress.type, token, (value) => void values.push(value));
    return values;
  }

  nextPacksChanged(timeoutMs = 10_000): Promise<string> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no packscope/packsChanged within ${timeoutMs} ms`)), timeoutMs);
      this.changeWaiters.push((repository) => {
        clearTimeout(timer);
        resolve(repository);
      });
    });
  }

  get alive(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  async stop(): Promise<number | null> {
    if (!this.alive) return this.child.exitCode;
    try {
      await this.connection.sendRequest(ShutdownRequest.type);
      await this.connection.sendNotification(ExitNotification.type);
    } catch {
      // already gone
    }
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 5000);
    const code = await this.exited;
    clearTimeout(timer);
    this.connection.dispose();
    return code;
  }
}

/** Awaits a request that must fail with a ResponseError, then hands the error to `check`. */
export async function expectError(
  promise: Promise<unknown>,
  check: (error: ResponseError<unknown>) => void,
): Promise<void> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof ResponseError, `a ResponseError, got ${String(error)}`);
    check(error);
    return;
  }
  assert.fail('the request should have failed');
}
