import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { completionOffer } from '../../src/presentation/completion-offer.ts';

/** What the Cache Lab offers under a sweep, by how wide its bounds are and what the recording says of its command. */
const K = 1024;
const cell = (limit: number, inflations: number, bounds: [number, number] | null, exact = false) => ({
  limit,
  inflations,
  exact,
  bounds: bounds === null ? null : { inflations: bounds },
});
const results = [
  cell(0, 15000, [15000, 15000], true),
  cell(32 * K, 5814, [5814, 7498]),
  cell(64 * K, 2818, [2818, 2830]),
];
const recorded = { mode: 'exact' as const, args: ['blame', 'Makefile'], cwd: '/src/repo' };

test('an exact recording with its command: one action at the limits wider than 1%', () => {
  const offer = completionOffer(recorded, { results } as never);
  assert.equal(offer?.kind, 'action');
  assert.deepEqual(offer.limits, [32 * K]);
  assert.equal(offer.kind === 'action' && offer.label, 'Complete at 32k…');
  assert.match(offer.text, /runs git blame Makefile again 2 times .* in \/src\/repo /);
});

test('none when every cell is exact or within 1%', () => {
  assert.equal(completionOffer(recorded, { results: [results[0]!, results[2]!] } as never), undefined);
});

test('a terminal recording and a passive one: what completion needs, no action', () => {
  const terminal = completionOffer({ mode: 'raw', args: null, cwd: null }, { results } as never);
  assert.equal(terminal?.kind, 'note');
  assert.match(terminal.text, /completion needs packscope record --exact --complete=32k -- <command>/);
  const passive = completionOffer({ ...recorded, mode: 'passive' }, { results } as never);
  assert.equal(passive?.kind, 'note');
  assert.match(
    passive.text,
    /needs a recording made in exact mode .* packscope record --exact --complete=32k -- blame Makefile\.$/,
  );
});
