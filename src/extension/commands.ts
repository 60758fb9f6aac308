// Every `packscope.*` command in one table (as rust-analyzer's ctx.ts keeps `commandFactories`):
// the ones package.json contributes and the two the Packs view's own items run. Each entry makes
// its handler from the features `activate` built; one wrapper logs and shows what a command throws.
import { errorMessage } from '../common/error-message.ts';
import vscode = require('vscode');
import type { CacheLabApi } from './cache-lab/cache-lab.ts';
import type { Lifetime } from './dispose.ts';
import { cancelModelLoads } from './model-progress.ts';
import { openObjectDocument } from './object-document.ts';
import { askForObject, askForObjectName, objectTarget } from './object-target.ts';
import { ResolveNameRequest } from '../protocol/server-protocol.ts';
import { RETRY_COMMAND } from './packs-view/message-node.ts';
import { PacksNodeBase, type PacksNode } from './packs-view/packs-node.ts';
import type { PackMapApi } from './pack-map/pack-map.ts';
import type { BytesTreemapApi } from './bytes-treemap/bytes-treemap.ts';
import type { PacksTreeProvider } from './packs-view/packs-tree.ts';
import type { RecordingCommands } from './recording/recording-commands.ts';
import type { RepackPreviewApi } from './repack-preview/repack-preview-command.ts';
import { type ServerClient } from './server-client.ts';

/** What the commands act on. */
export interface CommandContext {
  server: ServerClient;
  packsTree: PacksTreeProvider;
  output: vscode.LogOutputChannel;
  recordings: RecordingCommands;
  cacheLab: CacheLabApi;
  repackPreview: RepackPreviewApi;
  packMap: PackMapApi;
  bytesTreemap: BytesTreemapApi;
}

type CommandHandler = (...args: unknown[]) => unknown;

interface CommandEntry {
  make(context: CommandContext): CommandHandler;
  /**
   * Names what failed in the error notification and offers the log: a repack preview fails with
   * git's own text, which the log shows in full.
   */
  failure?: string;
}

const commandFactories: Record<string, CommandEntry> = {
  'packscope.toggleDepthScale': {
    make: () => async () => {
      // A user setting, so that every pack's histogram (and the next window's) draws the same way.
      const config = vscode.workspace.getConfiguration('packscope');
      const next = config.get<unknown>('view.depthScale') === 'log' ? 'linear' : 'log';
      await config.update('view.depthScale', next, vscode.ConfigurationTarget.Global);
    },
  },
  'packscope.refresh': {
    make:
      ({ packsTree }) =>
      () =>
        packsTree.refreshAll(),
  },
  'packscope.copyObjectId': {
    make: () => async (node) => {
      const object = objectTarget(node);
      if (object === undefined) return;
      await vscode.env.clipboard.writeText(object.oid);
      vscode.window.setStatusBarMessage(`Copied ${object.oid}`, 3000);
    },
  },
  'packscope.showChain': {
    make:
      ({ packsTree }) =>
      (node) => {
        const object = objectTarget(node);
        return object === undefined ? undefined : packsTree.reveal(object.oid, object.repository);
      },
  },
  'packscope.revealObject': {
    make:
      ({ packsTree }) =>
      (target, repository) => {
        const object = objectTarget(target, repository);
        if (object === undefined) throw new Error('packscope.revealObject needs an object id');
        return packsTree.reveal(object.oid, object.repository);
      },
  },
  'packscope.openObject': {
    make:
      ({ server }) =>
      async (target, repository) => {
        const object = objectTarget(target, repository);
        if (object !== undefined) return openObjectDocument(object.oid, object.repository);
        const details = await askForObject(server);
        return details === undefined ? undefined : openObjectDocument(details.oid, details.repository);
      },
  },
  'packscope.goToObject': {
    make:
      ({ server }) =>
      async (name) => {
        // A name passed as the argument (a test, a keybinding's args) skips the input box.
        if (typeof name === 'string') {
          const result = await server.request(ResolveNameRequest, { name });
          if (!result.found) throw new Error(result.reason);
          return openObjectDocument(result.oid, result.repository);
        }
        const object = await askForObjectName(server);
        return object === undefined ? undefined : openObjectDocument(object.oid, object.repository);
      },
  },
  /** Optional argument: the filter itself ({ types, minDepth, maxDepth }); none asks for it. */
  'packscope.filterObjects': {
    make:
      ({ packsTree }) =>
      (filter) =>
        packsTree.filterObjects(filter),
  },
  'packscope.clearObjectFilter': {
    make:
      ({ packsTree }) =>
      () =>
        packsTree.filterObjects(null),
  },
  'packscope.cancelLoad': {
    make:
      ({ server }) =>
      () => {
        server.cancelLoads();
        return cancelModelLoads();
      },
  },
  'packscope.showServerOutput': {
    make:
      ({ output }) =>
      () =>
        output.show(true),
  },
  'packscope.restartServer': {
    make:
      ({ server, packsTree }) =>
      async () => {
        await server.restart();
        await packsTree.refreshAll();
      },
  },
  'packscope.loadMore': {
    make:
      ({ packsTree }) =>
      (node) =>
        packsNode(node)?.kind === 'more'
          ? packsTree.loadMore((node as Extract<PacksNode, { kind: 'more' }>).parent)
          : undefined,
  },
  [RETRY_COMMAND]: {
    make:
      ({ packsTree }) =>
      (node) => {
        const target = packsNode(node);
        return target === undefined ? undefined : packsTree.retry(target);
      },
  },
  'packscope.openCacheLab': {
    make:
      ({ cacheLab }) =>
      async (argument) => {
        await cacheLab.open(argument);
      },
  },
  'packscope.previewRepack': {
    make:
      ({ repackPreview }) =>
      (argument) =>
        repackPreview.run(argument),
    failure: 'repack preview failed',
  },
  'packscope.openPackMap': {
    make:
      ({ packMap }) =>
      async (argument) => {
        await packMap.open(argument);
      },
  },
  /** Argument: a repository row, its "Where the bytes go" row, `{ repository }`, or nothing (a pick). */
  'packscope.showBytesTreemap': {
    make:
      ({ bytesTreemap }) =>
      async (argument) => {
        await bytesTreemap.open(argument);
      },
  },
  'packscope.toggleRecording': {
    make:
      ({ recordings }) =>
      () =>
        recordings.toggle(),
  },
  'packscope.recordCommand': {
    make:
      ({ recordings }) =>
      (argument) =>
        recordings.recordCommand(argument),
  },
  'packscope.recordings.refresh': {
    make:
      ({ recordings }) =>
      () =>
        recordings.refresh(),
  },
  'packscope.recordings.openCacheLab': {
    make:
      ({ recordings }) =>
      (node) =>
        recordings.openCacheLab(node, 'simulation'),
  },
  'packscope.recordings.localityReport': {
    make:
      ({ recordings }) =>
      (node) =>
        recordings.openCacheLab(node, 'locality'),
  },
  'packscope.recordings.rename': {
    make:
      ({ recordings }) =>
      (node, newName) =>
        recordings.rename(node, newName),
  },
  'packscope.recordings.delete': {
    make:
      ({ recordings }) =>
      (node, options) =>
        recordings.delete(node, options),
  },
  'packscope.recordings.revealFile': {
    make:
      ({ recordings }) =>
      (node) =>
        recordings.revealFile(node),
  },
};

/** A node of the Packs view, when that is what VS Code passed. */
function packsNode(value: unknown): PacksNode | undefined {
  return value instanceof PacksNodeBase ? (value as PacksNode) : undefined;
}

const SHOW_LOG = 'Show Log';

/** Registers every command of the table into `lifetime`; a command that throws resolves to undefined. */
export function registerCommands(lifetime: Lifetime, context: CommandContext): void {
  for (const [id, entry] of Object.entries(commandFactories)) {
    const handler = entry.make(context);
    lifetime.register(
      vscode.commands.registerCommand(id, async (...args: unknown[]) => {
        try {
          return await handler(...args);
        } catch (error) {
          const message = errorMessage(error);
          context.output.error(`${id} failed: ${message}`);
          if (entry.failure === undefined) void vscode.window.showErrorMessage(`PackScope: ${message}`);
          else {
            void vscode.window.showErrorMessage(`PackScope: ${entry.failure}: ${message}`, SHOW_LOG).then((choice) => {
              if (choice === SHOW_LOG) context.output.show(true);
            });
          }
          return undefined;
        }
      }),
    );
  }
}
