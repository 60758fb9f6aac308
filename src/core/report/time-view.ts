/** The time view's shapes, for the protocol: it takes result shapes from core/report only. */
export type { Calibration, NonReadTime, TimeCell, TimeView } from '../cost/cost-model.ts';
