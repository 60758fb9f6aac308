/** Objects by id: hovers, terminal links (resolveIds), the object and its document. */
import { errorMessage } from '../../common/error-message.ts';
import type { CancellationToken, Hover, HoverParams, TextDocuments } from 'vscode-languageserver/node';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import {
  ObjectContentRequest,
  ObjectRequest,
  ResolveIdsRequest,
  ObjectNamesRequest,
  ResolveNameRequest,
  type ObjectNamesParams,
  type ObjectNamesResult,
  type ResolveNameParams,
  type ResolveNameResult,
  type ObjectContentParams,
  type ObjectContentResult,
} from '../../protocol/server-protocol.ts';
import type { ObjectContentBody } from '../object-content.ts';
import { hexWordAt, hoverMarkdown, lookupObject, type Found } from '../object-lookup.ts';
import { objectDetails } from '../object-views.ts';
import { optionalString, paramsObject, requireInteger, requireString, stringList } from '../request-params.ts';
import type { ServerContext } from '../server-context.ts';
import { startTaskWorker } from '../workers/task-worker-client.ts';
import { whereabouts } from '../../core/model/repository-layout.ts';
import type { ObjectNames } from '../../core/documents/stats-document.ts';
import { resolveRevision } from '../../core/git/rev-parse.ts';
import { errorKind } from '../../core/errors.ts';

/**
 * How long a hover waits for git to name the commit that introduced a blob or tree: not at all. The
 * search starts and the hover says "resolving names…"; the next hover of the object has it. On
 * git/git one path's search takes seconds, and a hover that waited 1.5 s for it stalled the hover
 * bench (a hover answers in milliseconds otherwise, and must within 50 ms during a build).
 */
const HOVER_WAIT_MS = 0;
/** packscope/object with `introducedBy` (a Packs view tooltip) waits this long for it, as a hover does. */
const OBJECT_WAIT_MS = 1500;
/** An object document waits this long (it waits for the content anyway); it asks again while resolving. */
const DOCUMENT_WAIT_MS = 10_000;

/** A revision name longer than this is no name a person typed. */
const MAX_NAME_LENGTH = 4096;
/** Object ids and prefixes: a SHA-256 id is 64 hex digits; anything much longer is no id. */
const MAX_OID_LENGTH = 256;
/** resolveIds looks at this many words of one request. */
const MAX_WORDS = 1000;

/**
 * The object's content and delta listing, rebuilt in a task worker (queued per kind,
 * cancelled with the request) from the model the server's loader persisted: the server's thread
 * keeps answering hovers meanwhile.
 */
async function readObjectContentInWorker(
  context: ServerContext,
  found: Found,
  shown: { maxContentBytes: number; maxInstructions: number },
  token: CancellationToken,
): Promise<ObjectContentBody> {
  const { model, object } = found.location;
  return context.work.run('object-content', token, async () => {
    let body: ObjectContentBody | undefined;
    const worker = startTaskWorker(
      context.bundledScript('task-worker.js'),
      {
        kind: 'object-content',
        files: model.files,
        hashName: found.state.repository.hash.name,
        cacheDir: context.loader.directory,
        object,
        ...shown,
      },
      token,
      (message) => {
        if (message.kind === 'object-content') body = message.body;
      },
    );
    try {
      await worker.finished;
    } finally {
      // The queue's place is held until the thread has ended: a cancelled rebuild being terminated still counts.
      await worker.exited;
    }
    if (!body) throw new Error(`${found.oid}: the worker sent no content`);
    return body;
  });
}

/**
 * The names of a found object; for a blob or tree with a path, the commit that introduced it there
 * too, waited for at most `waitMs` (git looks once per object; a later ask gets the answer).
 */
async function namesWithIntroducer(context: ServerContext, found: Found, waitMs: number): Promise<ObjectNames> {
  const names = context.objectPaths.namesAt(found.state.id, found.state.store, found.location);
  const type = found.location.model.typeName(found.location.object);
  if ((type === 'blob' || type === 'tree') && typeof names.path === 'string')
    names.introducedBy = await context.introducingCommits.within(found.state.store, found.oid, names.path, waitMs);
  return names;
}

export function registerObjectHandlers(context: ServerContext, documents: TextDocuments<TextDocument>): void {
  const { connection } = context;

  connection.onRequest(ObjectRequest, (params, token) =>
    context.guarded(async () => {
      const fields = paramsObject(params);
      const oid = requireString(fields.oid, 'oid', MAX_OID_LENGTH);
      const repository = optionalString(fields.repository, 'repository');
      const progress = connection.window.attachWorkDoneProgress(params.workDoneToken);
      const states = context.statesFor(repository);
      for (const state of states) await context.ensureRepository(state, token, progress);
      const result = lookupObject(oid.trim(), states);
      if (result.kind === 'none') return { found: false as const, reason: result.reason };
      const names =
        fields.introducedBy === true
          ? await namesWithIntroducer(context, result.found, OBJECT_WAIT_MS)
          : context.objectPaths.namesAt(result.found.state.id, result.found.state.store, result.found.location);
      const where = whereabouts(result.found.state.store, result.found.oid);
      return {
        found: true as const,
        object: {
          ...objectDetails(result.found.location, result.found.state),
          ...names,
          ...(where ? { whereabouts: where } : {}),
        },
      };
    }),
  );

  connection.onRequest(ObjectContentRequest, (params, token) =>
    context.guarded(() => objectContent(context, params, token)),
  );

  connection.onRequest(ResolveIdsRequest, (params) =>
    context.guarded(() => {
      const fields = paramsObject(params);
      // More words than are looked at are cut, as before.
      const words = stringList(
        Array.isArray(fields.words) ? fields.words.slice(0, MAX_WORDS) : fields.words,
        'words',
        MAX_WORDS,
      );
      const states = context.readyStates();
      if (states.length < context.registry.repositories.length) context.warmUp();
      return {
        oids: words.map((word) => {
          if (!/^[0-9a-fA-F]{7,64}$/.test(word)) return null;
          const result = lookupObject(word.toLowerCase(), states);
          return result.kind === 'found' ? result.found.oid : null;
        }),
      };
    }),
  );

  connection.onRequest(ObjectNamesRequest, (params, token) =>
    context.guarded(() => objectNames(context, params, token)),
  );

  connection.onRequest(ResolveNameRequest, (params, token) =>
    context.guarded(() => resolveName(context, params, token)),
  );

  connection.onHover((params) => objectHover(context, documents, params));
}

/** A hover on a hex word: the object it names, in Markdown, when one of the ready repositories has it. */
async function objectHover(
  context: ServerContext,
  documents: TextDocuments<TextDocument>,
  params: HoverParams,
): Promise<Hover | null> {
  const document = documents.get(params.textDocument.uri);
  if (!document) return null;
  const line = document
    .getText({
      start: { line: params.position.line, character: 0 },
      end: { line: params.position.line + 1, character: 0 },
    })
    .replace(/\r?\n$/, '');
  const hit = hexWordAt(line, params.position.character);
  if (!hit) return null;
  const states = context.readyStates();
  if (states.length < context.registry.repositories.length) context.warmUp();
  try {
    const result = lookupObject(hit.word, states);
    if (result.kind === 'none') return null;
    // Ready states have every model in memory: the other packs' idx are searched, nothing is built.
    const where = whereabouts(result.found.state.store, result.found.oid);
    return {
      contents: {
        kind: 'markdown',
        value: hoverMarkdown(result.found, await namesWithIntroducer(context, result.found, HOVER_WAIT_MS), where),
      },
      range: {
        start: { line: params.position.line, character: hit.start },
        end: { line: params.position.line, character: hit.end },
      },
    };
  } catch (error) {
    context.log(`hover on ${hit.word}: ${errorMessage(error)}`);
    return null;
  }
}

/** `packscope/objectContent`: an object's details and its content (or delta instructions), read in a worker. */
async function objectContent(
  context: ServerContext,
  params: ObjectContentParams,
  token: CancellationToken,
): Promise<ObjectContentResult> {
  const fields = paramsObject(params);
  const oid = requireString(fields.oid, 'oid', MAX_OID_LENGTH);
  const repository = optionalString(fields.repository, 'repository');
  const shown = {
    maxContentBytes: requireInteger(fields.maxContentBytes, 'maxContentBytes'),
    maxInstructions: requireInteger(fields.maxInstructions, 'maxInstructions'),
  };
  const progress = context.connection.window.attachWorkDoneProgress(params.workDoneToken);
  const states = context.statesFor(repository);
  for (const state of states) await context.ensureRepository(state, token, progress);
  const result = lookupObject(oid.trim(), states);
  if (result.kind === 'none') return { found: false, reason: result.reason };
  const names = await namesWithIntroducer(context, result.found, DOCUMENT_WAIT_MS);
  const details = { ...objectDetails(result.found.location, result.found.state), ...names };
  return {
    found: true,
    content: { details, ...(await readObjectContentInWorker(context, result.found, shown, token)) },
  };
}

/** What "Go to Object…" accepts as an id or a prefix (git's shortest abbreviation is 4 digits). */
const HEX_NAME = /^[0-9a-fA-F]{4,64}$/;

/**
 * `packscope/resolveName`: hex digits are looked up in the packs; any other name is resolved by
 * `git rev-parse --verify` (read-only, rev-parse.ts) in each repository, only in a trusted
 * workspace. A name two repositories resolve to different objects is ambiguous, as a prefix is.
 */
async function resolveName(
  context: ServerContext,
  params: ResolveNameParams,
  token: CancellationToken,
): Promise<ResolveNameResult> {
  const fields = paramsObject(params);
  const name = requireString(fields.name, 'name', MAX_NAME_LENGTH).trim();
  const repository = optionalString(fields.repository, 'repository');
  const states = context.statesFor(repository);
  if (states.length === 0) return { found: false, reason: 'no repository with packs is open in this workspace' };
  if (HEX_NAME.test(name)) {
    for (const state of states) await context.ensureRepository(state, token);
    const result = lookupObject(name.toLowerCase(), states);
    return result.kind === 'found'
      ? { found: true, oid: result.found.oid, repository: result.found.state.id }
      : { found: false, reason: result.reason };
  }
  const git = context.gitForObjectNames();
  if (git === undefined)
    return {
      found: false,
      reason: `"${name}" is not an object id: this workspace is not trusted, so PackScope runs no git to resolve names like HEAD:Makefile; give 4 to 64 hex digits, or trust the workspace`,
    };
  const controller = new AbortController();
  const cancel = token.onCancellationRequested(() => controller.abort());
  try {
    const answers: { oid: string; repository: string }[] = [];
    const reasons: string[] = [];
    for (const state of states) {
      try {
        answers.push({
          oid: await resolveRevision(git, state.repository, name, controller.signal),
          repository: state.id,
        });
      } catch (error) {
        if (errorKind(error) === 'cancelled') throw error;
        reasons.push(errorMessage(error));
      }
    }
    const oids = new Set(answers.map((answer) => answer.oid));
    if (oids.size > 1)
      return {
        found: false,
        reason: `"${name}" is ambiguous: it names ${[...oids].join(' and ')} in different repositories of the workspace`,
      };
    return answers[0] !== undefined ? { found: true, ...answers[0] } : { found: false, reason: reasons[0]! };
  } finally {
    cancel.dispose();
  }
}

/** `packscope/objectNames`: the paths of objects given by full id (the repack preview's tables). */
async function objectNames(
  context: ServerContext,
  params: ObjectNamesParams,
  token: CancellationToken,
): Promise<ObjectNamesResult> {
  const fields = paramsObject(params);
  const repository = requireString(fields.repository, 'repository');
  const oids = stringList(fields.oids, 'oids', MAX_WORDS);
  const [state] = context.statesFor(repository);
  await context.ensureRepository(state!, token);
  return {
    names: oids.map((oid) => {
      const id = oid.toLowerCase();
      if (!/^[0-9a-f]{40}(?:[0-9a-f]{24})?$/.test(id)) return { oid };
      const names = context.objectPaths.namesOfId(state!.id, state!.store, id);
      return {
        oid: id,
        ...(names.path === undefined ? {} : { path: names.path }),
        ...(names.namesPending ? { namesPending: true as const } : {}),
      };
    }),
  };
}
