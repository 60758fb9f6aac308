import { PackIndex, type TransferredIndex } from '../format/idx.ts';
import type { RankingHead } from './pack-columns.ts';
import { PackModel, type DerivedColumns, type PackFiles, type SummaryFacts } from './pack-model.ts';
import { SizeColumn } from './size-column.ts';

/**
 * A pack model as plain data for postMessage, with the ArrayBuffers to transfer (moved, not copied):
 * a model worker hands a finished model, derived columns included, to the server thread for the cost
 * of a message.
 */
export interface TransferredModel {
  files: PackFiles;
  index: TransferredIndex;
  packVersion: number;
  packSize: number;
  columns: {
    inPackType: Uint8Array;
    type: Uint8Array;
    size: [Uint32Array, Map<number, number>];
    resultSize: [Uint32Array, Map<number, number>];
    diskSize: [Uint32Array, Map<number, number>];
    base: Int32Array;
    depth: Uint16Array | Uint32Array;
    byOffset: Uint32Array;
  };
  derived: DerivedColumns;
  /** Computed on the sending thread, so that the receiving one never scans the columns for a summary. */
  summary: SummaryFacts;
  /** The ranking heads a model file kept, so that the receiving thread need not scan for them either. */
  rankingHeads: Record<string, RankingHead>;
}

export function modelForTransfer(model: PackModel): { message: TransferredModel; transfer: ArrayBuffer[] } {
  const c = model.columns;
  const index = model.index.toTransfer();
  // A small idx may sit in Node's shared buffer pool: give it its own ArrayBuffer before moving it.
  if (index.bytes.byteOffset !== 0 || index.bytes.byteLength !== index.bytes.buffer.byteLength)
    index.bytes = new Uint8Array(index.bytes);
  const message: TransferredModel = {
    files: model.files,
    index,
    packVersion: model.packVersion,
    packSize: model.packSize,
    columns: {
      inPackType: c.inPackType,
      type: c.type,
      size: [c.size.low, c.size.overflow],
      resultSize: [c.resultSize.low, c.resultSize.overflow],
      diskSize: [c.diskSize.low, c.diskSize.overflow],
      base: c.base,
      depth: c.depth,
      byOffset: c.byOffset,
    },
    derived: model.derivedColumns(),
    summary: model.summaryFacts(),
    rankingHeads: model.allRankingHeads(),
  };
  const views: ArrayBufferView[] = [
    index.bytes,
    index.fanout,
    index.offsets,
    ...Object.values(message.columns).map((v) => (Array.isArray(v) ? v[0] : v)),
    ...Object.values(message.derived),
  ];
  const transfer = new Set<ArrayBuffer>();
  for (const view of views) if (view.buffer instanceof ArrayBuffer) transfer.add(view.buffer);
  return { message, transfer: [...transfer] };
}

export function modelFromTransfer(message: TransferredModel): PackModel {
  const index = PackIndex.fromTransfer(message.index);
  const c = message.columns;
  const model = new PackModel(message.files, index, index.hash, message.packVersion, message.packSize, {
    offset: index.offsets,
    inPackType: c.inPackType,
    type: c.type,
    size: new SizeColumn(c.size[0], c.size[1]),
    resultSize: new SizeColumn(c.resultSize[0], c.resultSize[1]),
    diskSize: new SizeColumn(c.diskSize[0], c.diskSize[1]),
    base: c.base,
    depth: c.depth,
    byOffset: c.byOffset,
  });
  model.adoptDerivedColumns(message.derived);
  model.adoptSummaryFacts(message.summary);
  for (const [ranking, head] of Object.entries(message.rankingHeads)) model.adoptRankingHead(ranking, head);
  return model;
}
