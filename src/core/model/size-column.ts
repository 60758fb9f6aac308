/**
 * A column of non-negative sizes: 4 bytes per object, with the rare value of 4 GiB or more kept in
 * a side map (the columnar pack model: docs/architecture.md, `src/core/model/`).
 */
export class SizeColumn {
  readonly low: Uint32Array;
  readonly overflow: Map<number, number>;

  constructor(countOrLow: number | Uint32Array, overflow?: Map<number, number>) {
    this.low = typeof countOrLow === 'number' ? new Uint32Array(countOrLow) : countOrLow;
    this.overflow = overflow ?? new Map();
  }

  get(n: number): number {
    const value = this.low[n]!;
    return value === 0xffffffff ? (this.overflow.get(n) ?? value) : value;
  }

  set(n: number, value: number): void {
    if (value >= 0xffffffff) {
      this.low[n] = 0xffffffff;
      this.overflow.set(n, value);
    } else {
      this.low[n] = value;
    }
  }

  get byteLength(): number {
    return this.low.byteLength + this.overflow.size * 16;
  }
}
