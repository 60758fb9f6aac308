/**
 * The words of the Packs view's "git-sizer's concerns" rows, from the concerns document
 * (packscope/concerns): git-sizer's sections, each row's value and level of concern. Pure (no
 * vscode): the tree's nodes show these strings, the unit tests read them.
 */
import { formatBytes, formatCount } from '../common/format.ts';
import type { ConcernMetric, ConcernsDocument } from '../protocol/server-protocol.ts';

export interface ConcernRowText {
  key: string;
  label: string;
  description: string;
  tooltip: string;
}

export interface ConcernSectionText {
  key: string;
  label: string;
  /** The highest level in the section as stars, or `` when none reaches 1. */
  description: string;
  rows: ConcernRowText[];
}

function valueText(m: ConcernMetric): string {
  return m.unit === 'B' ? formatBytes(m.value) : formatCount(m.value);
}

/** `1.2 MiB  ***`: the value, then git-sizer's stars when the level reaches 1. */
export function concernRowText(m: ConcernMetric): ConcernRowText {
  return {
    key: m.key,
    label: m.name,
    description: m.stars === '' ? valueText(m) : `${valueText(m)}  ${m.stars}`,
    tooltip: [
      m.description,
      `${formatCount(m.value)}${m.unit === 'B' ? ' bytes' : ''}; git-sizer's reference value ${formatCount(m.referenceValue)}: level ${m.level.toFixed(2)}${m.saturated ? " (at git-sizer's 32-bit limit)" : ''}`,
      ...(m.object === undefined ? [] : [`object: ${m.object}`]),
    ].join('\n'),
  };
}

/** git-sizer's sections in its order, with the reference groups under References. */
export function concernSections(document: ConcernsDocument): ConcernSectionText[] {
  const sections: ConcernSectionText[] = [];
  for (const m of document.metrics) {
    let section = sections[sections.length - 1];
    if (section?.label !== m.section) {
      section = { key: m.section, label: m.section, description: '', rows: [] };
      sections.push(section);
    }
    section.rows.push(concernRowText(m));
    if (m.stars.length > section.description.length) section.description = m.stars;
    if (m.key === 'referenceCount')
      for (const g of document.refGroups)
        section.rows.push({
          key: `refgroup.${g.symbol}`,
          label: `  ${g.name}`,
          description: formatCount(g.count),
          tooltip: `The number of references in group '${g.symbol}'`,
        });
  }
  return sections;
}

/** The node's own line: the rows at level 1 or more, or that none is. */
export function concernsSummary(document: ConcernsDocument): string {
  const flagged = document.metrics.filter((m) => m.stars !== '').length;
  const counted = document.complete ? '' : ' (not every object could be read)';
  return flagged === 0
    ? `nothing at git-sizer's level 1${counted}`
    : `${flagged} row${flagged === 1 ? '' : 's'} at git-sizer's level 1 or more${counted}`;
}
