/** Objects by id: hovers, terminal links (resolveIds), the object and its document. */
import type { Hover, TextDocuments } from 'vscode-languageserver/node';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import { ObjectContentRequest, ObjectRequest, ResolveIdsRequest, type ObjectContentParams, type ObjectContentResult } from '../../protocol/server-protocol.ts';
import { readObjectDocument } from '../object-content.ts';
import { hexWordAt, hoverMarkdown, lookupObject } from '../object-lookup.ts';
import { objectDetails } from '../object-views.ts';
import type { ServerContext } from '../server-context.ts';
import { errorMessage } from '../workspace-registry.ts';

export function registerObjectHandlers(context: ServerContext, documents: TextDocuments<TextDocument>): void {
  const { connection } = context;

  connection.onRequest(ObjectRequest, (params, token) =>
    context.guarded(async () => {
      const progress = connection.window.attachWorkDoneProgress(params.workDoneToken);
      const states = context.statesFor(params.repository);
      for (const state of states) await context.ensureRepository(state, token, progress);
      const result = lookupObject(params.oid.trim(), states);
      if (result.kind === 'none') return { found: false as const, reason: result.reason };
      return { found: true as const, object: objectDetails(result.found.location, result.found.state) };
    }),
  );

  connection.onRequest(ObjectContentRequest, (params: ObjectContentParams, token) =>
    context.guarded(async (): Promise<ObjectContentResult> => {
      const progress = connection.window.attachWorkDoneProgress(params.workDoneToken);
      const states = context.statesFor(params.repository);
      for (const state of states) await context.ensureRepository(state, token, progress);
      const result = lookupObject(params.oid.trim(), states);
      if (result.kind === 'none') return { found: false, reason: result.reason };
      return { found: true, content: readObjectDocument(result.found, params) };
    }),
  );

  connection.onRequest(ResolveIdsRequest, (params) =>
    context.guarded(() => {
      const states = context.readyStates();
      if (states.length < context.registry.repositories.length) context.warmUp();
      const words = params.words.slice(0, 1000);
      return {
        oids: words.map((word) => {
          if (!/^[0-9a-fA-F]{7,64}$/.test(word)) return null;
          const result = lookupObject(word.toLowerCase(), states);
          return result.kind === 'found' ? result.found.oid : null;
        }),
      };
    }),
  );

  connection.onHover((params): Hover | null => {
    const document = documents.get(params.textDocument.uri);
    if (!document) return null;
    const line = document.getText({ start: { line: params.position.line, character: 0 }, end: { line: params.position.line + 1, character: 0 } }).replace(/\r?\n$/, '');
    const hit = hexWordAt(line, params.position.character);
    if (!hit) return null;
    const states = context.readyStates();
    if (states.length < context.registry.repositories.length) context.warmUp();
    try {
      const result = lookupObject(hit.word, states);
      if (result.kind === 'none') return null;
      return {
        contents: { kind: 'markdown', value: hoverMarkdown(result.found) },
        range: { start: { line: params.position.line, character: hit.start }, end: { line: params.position.line, character: hit.end } },
      };
    } catch (error) {
      context.log(`hover on ${hit.word}: ${errorMessage(error)}`);
      return null;
    }
  });
}
