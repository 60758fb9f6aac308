// The Packs view's filter of its object lists (types and a depth range): asked for with a quick
// pick and an input box, kept per workspace (workspaceState), and shown in the view's title
// (`packscope.objectFilterActive` offers Clear).
import vscode = require('vscode');
import { OBJECT_TYPE_NAMES, type ObjectTypeName } from '../../common/object-types.ts';
import { normalizeObjectFilter, objectFilterText, parseDepthRange } from '../../presentation/packs-view-text.ts';
import type { ObjectListFilter } from '../../protocol/server-protocol.ts';

const STATE_KEY = 'packscope.packsView.objectFilter';
const CONTEXT_KEY = 'packscope.objectFilterActive';

export class ObjectFilterStore {
  private current: ObjectListFilter | undefined;

  constructor(private readonly memento: vscode.Memento | undefined) {
    this.current = normalizeObjectFilter(memento?.get<unknown>(STATE_KEY));
    void vscode.commands.executeCommand('setContext', CONTEXT_KEY, this.current !== undefined);
  }

  get filter(): ObjectListFilter | undefined {
    return this.current;
  }

  /** `blob · depth 2–6`, or undefined when the lists are not filtered. */
  get text(): string | undefined {
    return objectFilterText(this.current);
  }

  async set(value: unknown): Promise<void> {
    this.current = normalizeObjectFilter(value);
    await this.memento?.update(STATE_KEY, this.current);
    await vscode.commands.executeCommand('setContext', CONTEXT_KEY, this.current !== undefined);
  }
}

/** Asks for types, then a depth range, starting from `current`. Undefined: the user cancelled. */
export async function askForObjectFilter(current: ObjectListFilter | undefined): Promise<ObjectListFilter | undefined> {
  const picked = await vscode.window.showQuickPick(
    OBJECT_TYPE_NAMES.map((type) => ({
      label: type,
      picked: current?.types === undefined || current.types.includes(type),
    })),
    {
      canPickMany: true,
      title: 'PackScope: Filter Objects (1 of 2): object types',
      placeHolder: 'The types the lists show (a delta counts as the type it rebuilds)',
    },
  );
  if (picked === undefined) return undefined;
  const range = await vscode.window.showInputBox({
    title: 'PackScope: Filter Objects (2 of 2): delta depth',
    prompt: 'Depths to show: 3, 2-6, 5- (5 and deeper) or -6; empty for any depth',
    value: depthRangeText(current),
    validateInput: (text) =>
      parseDepthRange(text) === undefined ? 'Type a depth (3) or a range (2-6, 5-, -6), or leave it empty' : undefined,
  });
  if (range === undefined) return undefined;
  return { types: picked.map((p) => p.label as ObjectTypeName), ...parseDepthRange(range) };
}

function depthRangeText(filter: ObjectListFilter | undefined): string {
  const { minDepth, maxDepth } = filter ?? {};
  if (minDepth === undefined && maxDepth === undefined) return '';
  if (minDepth === maxDepth) return String(minDepth);
  return `${minDepth ?? ''}-${maxDepth ?? ''}`;
}
