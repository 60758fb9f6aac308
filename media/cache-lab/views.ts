import { renderIndexPack } from './index-pack-view.ts';
import { renderLocality } from './locality-view.ts';
import { renderMeasure } from './measure-view.ts';
import { renderSweep } from './sweep-view.ts';

export function renderAll(): void {
  renderSweep();
  renderIndexPack();
  renderMeasure();
  renderLocality();
}
