import vscode = require('vscode');
import { OBJECT_ID_PATTERN, ResolveIdsRequest } from '../protocol/server-protocol.ts';
import { openObjectDocument } from './object-document.ts';
import type { ServerClient } from './server-client.ts';

export class ObjectIdTerminalLink extends vscode.TerminalLink {
  constructor(
    startIndex: number,
    length: number,
    readonly oid: string,
  ) {
    super(startIndex, length, `Open object ${oid} (PackScope)`);
  }
}

/**
 * Object ids in terminal output become links, but only those that name exactly one packed object
 * (one `packscope/resolveIds` batch per line, so `git log --raw` output costs one request a line).
 */
export class ObjectIdTerminalLinkProvider implements vscode.TerminalLinkProvider<ObjectIdTerminalLink> {
  constructor(
    private readonly server: ServerClient,
    private readonly enabled: () => boolean,
  ) {}

  async provideTerminalLinks(
    context: vscode.TerminalLinkContext,
    token: vscode.CancellationToken,
  ): Promise<ObjectIdTerminalLink[]> {
    if (!this.enabled()) return [];
    const matches = [...context.line.matchAll(new RegExp(OBJECT_ID_PATTERN.source, OBJECT_ID_PATTERN.flags))];
    if (matches.length === 0) return [];
    const words = [...new Set(matches.map((match) => match[0].toLowerCase()))];
    let oids: (string | null)[];
    try {
      oids = (await this.server.request(ResolveIdsRequest, { words }, token)).oids;
    } catch {
      return []; // no server, or the line scrolled away: plain text
    }
    const resolved = new Map<string, string>();
    words.forEach((word, index) => {
      const oid = oids[index];
      if (typeof oid === 'string') resolved.set(word, oid);
    });
    const links: ObjectIdTerminalLink[] = [];
    for (const match of matches) {
      const oid = resolved.get(match[0].toLowerCase());
      if (oid !== undefined && match.index !== undefined)
        links.push(new ObjectIdTerminalLink(match.index, match[0].length, oid));
    }
    return links;
  }

  async handleTerminalLink(link: ObjectIdTerminalLink): Promise<void> {
    await openObjectDocument(link.oid);
  }
}
