import { formatCount, formatLimit } from '../../src/common/format.ts';
import type { RecordingInfo } from '../../src/protocol/server-protocol.ts';
import { baseName, h, replaceChildren } from '../common/dom.ts';
import { recordingSummary } from './layout.ts';
import { currentSweepPlaceholder, received } from './page.ts';

export function describeRecording(info: RecordingInfo): (Node | string)[] {
  const parts: (Node | string)[] = [
    h('strong', {}, info.command ?? baseName(info.file)),
    ` — ${formatCount(info.reads)} reads`,
  ];
  parts.push(`, ${info.packs.length === 1 ? '1 pack' : `${info.packs.length} packs`}`);
  parts.push(
    `, ${info.mode === 'exact' ? 'exact recording (core.deltaBaseCacheLimit=0)' : info.mode === 'passive' ? `passive recording${info.recordedLimit === null ? '' : ` at ${formatLimit(info.recordedLimit)}`}` : 'raw trace'}`,
  );
  if (info.segments.length > 1) parts.push(`, ${info.segments.length} git processes`);
  parts.push('. ', h('span', { class: 'path', title: info.file }, info.file));
  return parts;
}

export function renderSummary(): void {
  const info = received.sweep?.result.recording ?? received.info;
  if (info === undefined) {
    replaceChildren(recordingSummary, currentSweepPlaceholder().summary);
    return;
  }
  replaceChildren(recordingSummary, ...describeRecording(info));
  for (const warning of info.warnings ?? [])
    recordingSummary.append(h('br'), h('span', { class: 'warning' }, `⚠ ${warning}`));
}
