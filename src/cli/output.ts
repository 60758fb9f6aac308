import { formatBytes, formatCount, formatLimit } from '../common/format.ts';

export { formatBytes, formatCount, formatLimit };
export function writeJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

/** Pads columns of a small text table to equal widths (numbers right-aligned). */
export function formatTable(rows: string[][]): string[] {
  const widths: number[] = [];
  for (const row of rows) row.forEach((cell, i) => (widths[i] = Math.max(widths[i] ?? 0, cell.length)));
  return rows.map((row) =>
    row
      .map((cell, i) =>
        /^[\d,.%\s–≈]+(B|KiB|MiB|GiB|TiB)?$/.test(cell) && i > 0 ? cell.padStart(widths[i]!) : cell.padEnd(widths[i]!),
      )
      .join('  ')
      .trimEnd(),
  );
}
