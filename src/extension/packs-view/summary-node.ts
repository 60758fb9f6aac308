import { errorMessage } from '../../common/error-message.ts';
import vscode = require('vscode');
import { PackSummaryRequest, type PackSummary } from '../../protocol/server-protocol.ts';
import { formatBytes, formatCount, shortPackName } from '../format-units.ts';
import { isCancellation, withModelProgress } from '../model-progress.ts';
import { depthHistogramDescription, depthRowText, type DepthScale } from '../../presentation/packs-view-text.ts';
import { FactNode } from './fact-node.ts';
import { MessageNode, retryNode } from './message-node.ts';
import type { PackNode } from './pack-node.ts';
import { PacksNodeBase, type PacksNode, type TreeContext } from './packs-node.ts';

/** Requests a pack's summary, building its model in the server when needed (with progress). */
export async function loadSummary(context: TreeContext, pack: PackNode): Promise<PackSummary> {
  if (pack.summary !== undefined) return pack.summary;
  // The rows' progress text refreshes the pack's subtree, which asks for the summary again: one request.
  const pending = pendingSummaries.get(pack);
  if (pending !== undefined) return pending;
  const loading = requestSummary(context, pack);
  pendingSummaries.set(pack, loading);
  try {
    return await loading;
  } finally {
    pendingSummaries.delete(pack);
  }
}

const pendingSummaries = new WeakMap<PackNode, Promise<PackSummary>>();

async function requestSummary(context: TreeContext, pack: PackNode): Promise<PackSummary> {
  const summary = await withModelProgress(
    context.server,
    `PackScope: reading ${shortPackName(pack.listing.name)}`,
    (workDoneToken, token) =>
      context.server.request(PackSummaryRequest, { pack: pack.listing.pack, workDoneToken }, token),
    // The rows the user is looking at say how far the build is, not only the view's thin bar.
    (text, detail) => {
      context.showBuildProgress(
        pack.listing.pack,
        text === undefined ? undefined : `${shortPackName(pack.listing.name)}: ${detail ?? text}`,
      );
      pack.setLoading(text);
      context.changed(pack);
      pack.parent.setLoading(text);
      context.changed(pack.parent);
    },
  );
  pack.setSummary(summary);
  context.changed(pack);
  return summary;
}

export class SummaryNode extends PacksNodeBase {
  readonly kind = 'summary';
  private rows: PacksNode[] | undefined;

  constructor(readonly parent: PackNode) {
    super('Summary', vscode.TreeItemCollapsibleState.Collapsed);
    this.id = `${parent.id}|summary`;
    this.iconPath = new vscode.ThemeIcon('graph');
    this.contextValue = 'summary';
  }

  override async getChildren(context: TreeContext): Promise<PacksNode[]> {
    // The scale switch (packscope.toggleDepthScale) refreshes the view with this node kept: rows
    // drawn on the other scale are drawn again from the summary they came from.
    if (this.rows !== undefined && this.shown !== undefined && this.shown.scale !== depthScale())
      this.rows = this.rowsOf(this.shown.summary);
    if (this.rows !== undefined) return this.rows;
    if (this.ended !== undefined) return this.ended;
    // A build takes seconds on a big pack, and its progress text refreshes the pack's subtree, so VS
    // Code asks for these rows again while the first ask waits. Both answered with the same rows at
    // once made it refuse them ("Element with id … is already registered") and the Summary stayed
    // empty. So the first ask waits for the model; a later one while it waits gets a line pointing at
    // the progress, and the rows come with a refresh once the model is there.
    if (this.pendingRows === undefined) {
      this.pendingRows = this.loadRows(context).finally(() => {
        this.pendingRows = undefined;
        if (this.placeholderShown) {
          this.placeholderShown = false;
          context.changed(this);
        }
      });
      return this.pendingRows;
    }
    this.placeholders += 1;
    this.placeholderShown = true;
    return [
      new MessageNode(this, `building:${this.placeholders}`, 'Building the model… (progress on the pack row)', 'info'),
    ];
  }

  /** The summary the rows show and the depth scale they were drawn on. */
  private shown: { summary: PackSummary; scale: DepthScale } | undefined;

  private rowsOf(summary: PackSummary): PacksNode[] {
    this.shown = { summary, scale: depthScale() };
    return summaryRows(this, summary).map((row) => (row instanceof FactNode ? row.withoutIds() : row));
  }

  private pendingRows: Promise<PacksNode[]> | undefined;
  private placeholders = 0;
  private placeholderShown = false;
  /** What the last load ended with when it gave no rows (a cancel: the retry line), until a retry. */
  private ended: PacksNode[] | undefined;

  /** "Load again": the next ask loads the summary anew. */
  reload(): void {
    this.ended = undefined;
  }

  private async loadRows(context: TreeContext): Promise<PacksNode[]> {
    try {
      const summary = await loadSummary(context, this.parent);
      // The rows have no ids: an ask VS Code abandoned (a refresh of the pack while the model was
      // built) may have registered them already, and then every later ask was refused.
      this.rows = this.rowsOf(summary);
      return this.rows;
    } catch (error) {
      if (isCancellation(error)) return (this.ended = [retryNode(this)]);
      this.parent.setFailure(errorMessage(error));
      context.changed(this.parent);
      return (this.ended = []);
    }
  }
}

/** The depth histogram's scale: linear unless the user chose log (a log scale made 33.9% look 1.5 times 1.4%). */
export function depthScale(): DepthScale {
  return vscode.workspace.getConfiguration('packscope').get<unknown>('view.depthScale') === 'log' ? 'log' : 'linear';
}

function summaryRows(parent: SummaryNode, summary: PackSummary): PacksNode[] {
  const row = (key: string, label: string, description?: string): FactNode =>
    new FactNode(parent, key, label, description);
  const rows: PacksNode[] = [
    row('objects', `objects: ${formatCount(summary.objects)}`),
    row('commit', `commit: ${formatCount(summary.byType.commit)}`),
    row('tree', `tree: ${formatCount(summary.byType.tree)}`),
    row('blob', `blob: ${formatCount(summary.byType.blob)}`),
    row('tag', `tag: ${formatCount(summary.byType.tag)}`),
    row('ofs', `OFS deltas: ${formatCount(summary.deltas.ofs)}`),
    row('ref', `REF deltas: ${formatCount(summary.deltas.ref)}`),
  ];
  const scale = depthScale();
  const depths = new FactNode(
    parent,
    'depths',
    `depths: ≤ ${summary.maxDepth}`,
    depthHistogramDescription(summary.meanDepth, scale),
    true,
  );
  // The row's own menu switches the scale (packscope.toggleDepthScale).
  depths.contextValue = `depth-histogram ${scale}`;
  const widest = Math.max(1, ...summary.depthHistogram);
  summary.depthHistogram.forEach((count, depth) => {
    const text = depthRowText(depth, count, summary.objects, widest, scale);
    // In a narrow sidebar the longest bars push the depth and count past the edge: the hover says it all.
    depths.add(`depth:${depth}`, text.label, text.description).tooltip =
      `${text.description}: ${text.label.split(' ').pop()} of the pack's ${formatCount(summary.objects)} objects`;
  });
  rows.push(
    depths,
    row('inflated', `inflated: ${formatBytes(summary.bytes.inflated)}`, `${formatCount(summary.bytes.inflated)} bytes`),
    row('on-disk', `on disk: ${formatBytes(summary.bytes.onDisk)}`, `${formatCount(summary.bytes.onDisk)} bytes`),
    row('pack-file', `pack file: ${formatBytes(summary.packFileBytes)}`, `${formatCount(summary.packFileBytes)} bytes`),
    row('families', `families: ${formatCount(summary.families)}`),
    row(
      'format',
      `format: pack v${summary.packVersion} · idx v${summary.idxVersion} · ${summary.hasRev ? 'with' : 'no'} .rev`,
    ),
    row(
      'model',
      summary.source === 'persisted'
        ? `model: persisted, loaded in ${summary.loadMs} ms`
        : `model: built in ${summary.loadMs} ms`,
    ),
    row('checksum', `checksum: ${summary.checksum}`),
  );
  return rows;
}
