/** One cell of bench/policies.bench.ts's results (bench/results/policies-*.json), as bench/policies-report.ts reads them. */
export interface Cell {
  repo: string;
  command: string;
  /** The git arguments the command ran with. */
  args: string;
  policy: string;
  build: string;
  limit: string;
  realLines: number;
  realInflations: number;
  predictedLines: number;
  /** The replay's inflations plus the command's constant: comparable with realInflations. */
  predictedInflations: number;
  exact: boolean;
  cpuSeconds?: number;
  cpuRuns?: number;
  load?: string;
  predictedSeconds?: number;
  /**
   * --bounds: the cell as a limit-0 recording of today's git bounds it (hidden-reads.ts), for a
   * policy whose cache can branch: whether this build's real counts lie inside.
   */
  stockBounds?: { lines: [number, number]; inflations: [number, number]; exact: boolean; inBounds: boolean };
}
