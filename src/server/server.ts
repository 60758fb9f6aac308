/**
 * The PackScope language server (docs/architecture.md, its processes): owns every pack of every workspace
 * folder, answers hovers on object ids and the requests of src/protocol/server-protocol.ts. Started
 * by the extension over IPC, or standalone with `node dist/server.js --stdio` for tools and benchmarks.
 * This file wires the connection: the state is server-state.ts's, the requests are handlers/*.ts's.
 */
import {
  createConnection,
  ProposedFeatures,
  TextDocuments,
  TextDocumentSyncKind,
  type InitializeParams,
} from 'vscode-languageserver/node';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { CancelLoadsNotification, ConfigureNotification } from '../protocol/server-protocol.ts';
import { registerIndexPackHandlers } from './handlers/index-pack.ts';
import { registerMeasureHandlers } from './handlers/measure.ts';
import { registerObjectHandlers } from './handlers/objects.ts';
import { registerPackHandlers } from './handlers/packs.ts';
import { registerPackMapHandlers } from './handlers/pack-map.ts';
import { registerPolicyHandlers } from './handlers/policies.ts';
import { registerRecordHandlers } from './handlers/record.ts';
import { registerRecordingHandlers } from './handlers/recordings.ts';
import { registerRepackHandlers } from './handlers/repack.ts';
import { registerSimulationHandlers } from './handlers/simulation.ts';
import { registerSizesHandlers } from './handlers/sizes.ts';
import { registerConcernsHandlers } from './handlers/concerns.ts';
import { ServerState } from './server-state.ts';

/** Replaced by the bundler with package.json's version. */
declare const PACKSCOPE_VERSION: string | undefined;

function startServer(): void {
  const connection = createConnection(ProposedFeatures.all);
  const documents = new TextDocuments(TextDocument);
  // The worker bundles (model-worker.js, task-worker.js, sim-worker.js) sit next to server.js.
  const context = new ServerState(connection, __dirname);

  // The server must survive anything a pack or a request throws at it: report, keep serving.
  process.on('uncaughtException', (error) =>
    context.log(`unexpected error (server keeps running): ${error.stack ?? error.message}`),
  );
  process.on('unhandledRejection', (reason) =>
    context.log(
      `unexpected rejection (server keeps running): ${reason instanceof Error ? reason.stack : String(reason)}`,
    ),
  );

  connection.onInitialize((params: InitializeParams) => {
    context.initialize(params);
    return {
      capabilities: {
        textDocumentSync: TextDocumentSyncKind.Incremental,
        hoverProvider: true,
        workspace: { workspaceFolders: { supported: true, changeNotifications: true } },
      },
      serverInfo: { name: 'packscope', version: typeof PACKSCOPE_VERSION === 'string' ? PACKSCOPE_VERSION : 'dev' },
    };
  });

  connection.onInitialized(() => {
    if (context.clientSendsFolderChanges)
      connection.workspace.onDidChangeWorkspaceFolders((event) => context.changeFolders(event));
    context.warmUp();
  });

  connection.onNotification(ConfigureNotification, (next) => context.configure(next));
  connection.onNotification(CancelLoadsNotification, () => context.cancelLoads());

  // One line per area of requests (handlers/*.ts).
  registerPackHandlers(context);
  registerObjectHandlers(context, documents);
  registerRecordingHandlers(context);
  registerSimulationHandlers(context);
  registerIndexPackHandlers(context);
  registerRecordHandlers(context);
  registerMeasureHandlers(context);
  registerRepackHandlers(context);
  registerPolicyHandlers(context);
  registerPackMapHandlers(context);
  registerSizesHandlers(context);
  registerConcernsHandlers(context);

  connection.onShutdown(() => context.shutdown());
  // A client that went away without shutdown (killed, or its pipe closed) ends this process too.
  process.on('exit', () => context.removePrivateCache());

  documents.listen(connection);
  connection.listen();
}

startServer();
