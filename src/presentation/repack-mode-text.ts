/**
 * A `git repack --geometric=N -d` / `--cruft -d` preview as Markdown (the document the extension
 * opens): packs before and after, and each pack removed, kept or written. Pure (no vscode).
 */
import { formatBytes, formatCount } from '../common/format.ts';
import { markdownCodeSpan, markdownText } from '../common/markdown-text.ts';
import type { RepackModePreviewDocument } from '../protocol/server-protocol.ts';

type Side = RepackModePreviewDocument['before'];
type Pack = Side['packs'][number];

const objectsOf = (side: Side): number => side.packs.reduce((sum, p) => sum + p.objects, 0);
const bytesOf = (side: Side): number => side.packs.reduce((sum, p) => sum + p.packBytes, 0);

function kindText(p: Pack): string {
  const parts = [
    p.kind === 'normal' ? '' : p.kind,
    ...p.markers
      .filter((m) => !(m === 'mtimes' && p.kind === 'cruft') && !(m === 'promisor' && p.kind === 'promisor'))
      .map((m) => `.${m}`),
  ];
  return parts.filter(Boolean).join(' ');
}

export function repackModeMarkdown(d: RepackModePreviewDocument, repositoryName: string): string {
  const lines = [
    `# ${markdownText(d.equivalent.join(' '))} on ${markdownText(repositoryName)}`,
    '',
    `What this repack would do, run for real by git ${markdownText(d.gitVersion)} against a temporary shadow of the objects directory (the repository is only read), in ${d.seconds.toFixed(2)} s.`,
    '',
    '| | before | after |',
    '|---|---:|---:|',
    `| packs | ${d.before.packs.length} | ${d.after.packs.length} |`,
    `| cruft packs | ${d.before.packs.filter((p) => p.kind === 'cruft').length} | ${d.after.packs.filter((p) => p.kind === 'cruft').length} |`,
    `| objects in packs | ${formatCount(objectsOf(d.before))} | ${formatCount(objectsOf(d.after))} |`,
    `| pack bytes | ${formatBytes(bytesOf(d.before))} | ${formatBytes(bytesOf(d.after))} |`,
    `| loose objects | ${formatCount(d.before.looseObjects)} | ${formatCount(d.after.looseObjects)} |`,
    '',
    '| pack | | objects | size | kind |',
    '|---|---|---:|---:|---|',
  ];
  const row = (status: string, p: Pack): string =>
    `| ${markdownCodeSpan(p.name)} | ${status} | ${formatCount(p.objects)} | ${formatBytes(p.packBytes)} | ${markdownText(kindText(p))} |`;
  for (const p of d.before.packs) if (d.removed.includes(p.name)) lines.push(row('removed', p));
  for (const p of d.after.packs) if (d.unchanged.includes(p.name)) lines.push(row('kept', p));
  for (const p of d.after.packs) if (d.written.includes(p.name)) lines.push(row('written', p));
  lines.push('', `git ran: ${markdownCodeSpan(d.gitArgs.join(' '))}`);
  return lines.join('\n') + '\n';
}
