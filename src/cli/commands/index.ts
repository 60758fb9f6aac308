import type { Command } from '../command.ts';
import { calibrateCommand } from './calibrate.ts';
import { indexPackSimCommand } from './index-pack-sim.ts';
import { localityCommand } from './locality.ts';
import { mapCommand } from './map.ts';
import { objectCommand } from './object.ts';
import { objectsCommand } from './objects.ts';
import { policiesCommand } from './policies.ts';
import { recordCommand } from './record.ts';
import { repackPreviewCommand } from './repack-preview.ts';
import { simulateCommand } from './simulate.ts';
import { sizesCommand } from './sizes.ts';
import { statsCommand } from './stats.ts';
import { sweepCommand } from './sweep.ts';
import { verifyPackCommand } from './verify-pack.ts';

/**
 * Every `packscope` command, in the order the overview lists them. A new command is its file here
 * (exporting its Command) plus one line in this table; main.ts builds the overview, the help and
 * the dispatch from it.
 */
export const COMMANDS: readonly Command[] = [
  verifyPackCommand,
  statsCommand,
  sizesCommand,
  objectCommand,
  objectsCommand,
  recordCommand,
  localityCommand,
  mapCommand,
  simulateCommand,
  sweepCommand,
  calibrateCommand,
  policiesCommand,
  indexPackSimCommand,
  repackPreviewCommand,
];
