import { spawn, type ChildProcess, type ChildProcessWithoutNullStreams } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { buildSync } from 'esbuild';
import {
  createProtocolConnection,
  ExitNotification,
  InitializedNotification,
  InitializeRequest,
  ShutdownRequest,
  StreamMessageReader,
  StreamMessageWriter,
  type ProtocolConnection,
} from 'vscode-languageserver-protocol/node';
import type { ServerSettings } from '../src/protocol/server-protocol.ts';
import { projectRoot } from './generate.ts';

/**
 * Bundles the server and every worker it starts (bundledScript: models, sweeps, the other
 * simulations), with scripts/build.mjs's list of Node bundles (scripts/node-entries.json), into `outdir` (pinned for the run: a rebuild of dist/ by
 * someone else cannot change the server mid-bench). Returns the server's script.
 */
export function bundleServer(outdir: string): string {
  fs.rmSync(outdir, { recursive: true, force: true });
  const version = (JSON.parse(fs.readFileSync(path.join(projectRoot, 'package.json'), 'utf8')) as { version: string })
    .version;
  buildSync({
    absWorkingDir: projectRoot,
    // scripts/build.mjs's own list: every worker the server may start, none forgotten here.
    entryPoints: JSON.parse(fs.readFileSync(path.join(projectRoot, 'scripts', 'node-entries.json'), 'utf8')) as Record<
      string,
      string
    >,
    outdir,
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    sourcemap: 'linked',
    logLevel: 'warning',
    define: { PACKSCOPE_VERSION: JSON.stringify(version) },
  });
  return path.join(outdir, 'server.js');
}

/** Every child this bench started and that still runs: killed when the bench fails. */
export const liveChildren = new Set<ChildProcess>();

/** The server as a child process over stdio with plain LSP; `settings` over every default (hoverIndexLimit 0). */
export class Server {
  readonly log: string[] = [];
  private readonly exited: Promise<number | null>;

  private constructor(
    readonly child: ChildProcessWithoutNullStreams,
    readonly connection: ProtocolConnection,
  ) {
    this.exited = new Promise((resolve) => child.on('exit', (code) => resolve(code)));
    connection.onNotification('window/logMessage', (params: { message: string }) => {
      this.log.push(params.message);
    });
    connection.onRequest('window/workDoneProgress/create', () => null);
  }

  static async start(
    script: string,
    settings: Partial<ServerSettings>,
    nodeArgs: string[] = [],
    env?: NodeJS.ProcessEnv,
  ): Promise<Server> {
    const child = spawn(process.execPath, [...nodeArgs, script, '--stdio'], { stdio: 'pipe', cwd: projectRoot, env });
    liveChildren.add(child);
    child.on('exit', () => liveChildren.delete(child));
    const stderr: string[] = [];
    child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk.toString()));
    child.on('exit', (code, signal) => {
      if (code !== 0 && code !== null)
        process.stderr.write(`server exited with ${code ?? signal}: ${stderr.join('')}\n`);
    });
    const connection = createProtocolConnection(
      new StreamMessageReader(child.stdout),
      new StreamMessageWriter(child.stdin),
    );
    const server = new Server(child, connection);
    connection.listen();
    await connection.sendRequest(InitializeRequest.type, {
      processId: process.pid,
      rootUri: null,
      capabilities: { window: { workDoneProgress: true } },
      workspaceFolders: [],
      initializationOptions: {
        settings: {
          repositories: [],
          scanDepth: 1,
          modelCacheDirectory: '',
          persistModels: true,
          hoverIndexLimit: 0,
          ...settings,
        },
      },
    });
    await connection.sendNotification(InitializedNotification.type, {});
    return server;
  }

  async stop(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    try {
      await this.connection.sendRequest(ShutdownRequest.type);
      await this.connection.sendNotification(ExitNotification.type);
    } catch {
      // already gone
    }
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 10_000);
    const code = await this.exited;
    clearTimeout(timer);
    this.connection.dispose();
    if (code !== 0) throw new Error(`the server exited with code ${code}; its log:\n${this.log.join('\n')}`);
  }
}
