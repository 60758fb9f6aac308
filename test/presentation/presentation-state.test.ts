/**
 * The webviews' states as VS Code hands them back after a reload (src/presentation/*-state.ts):
 * pure functions, so checked here without a browser. A state from an older page, a damaged one, or
 * one with hostile values must come back usable: each field kept only when it is valid, the rest
 * the defaults. And the Cache Lab never says "No sweep yet. Press Run" while a sweep is running.
 */
import * as assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { normalizeCacheLabState, sweepPlaceholder } from '../../src/presentation/cache-lab-state.ts';
import { MAX_ZOOM, normalizeCamera, normalizePackMapState } from '../../src/presentation/pack-map-state.ts';
import { normalizeRepackPreviewState } from '../../src/presentation/repack-preview-state.ts';
import { CACHE_LAB_PROTOCOL_VERSION, defaultCacheLabState } from '../../src/protocol/cache-lab-protocol.ts';
import { PACK_MAP_PROTOCOL_VERSION } from '../../src/protocol/pack-map-protocol.ts';
import { REPACK_PREVIEW_PROTOCOL_VERSION } from '../../src/protocol/repack-preview-protocol.ts';

describe('Pack Map state', () => {
  test('a camera keeps a zoom within 0…MAX_ZOOM and a centre within the unit square; anything else is the whole-pack view', () => {
    assert.deepEqual(normalizeCamera(undefined), { zoom: 0, centerX: 0.5, centerY: 0.5 });
    assert.deepEqual(normalizeCamera({ zoom: 3.5, centerX: 0.25, centerY: 0.75 }), {
      zoom: 3.5,
      centerX: 0.25,
      centerY: 0.75,
    });
    assert.deepEqual(normalizeCamera({ zoom: 999, centerX: -2, centerY: 7 }), {
      zoom: MAX_ZOOM,
      centerX: 0,
      centerY: 1,
    });
    assert.deepEqual(normalizeCamera({ zoom: Number.NaN, centerX: Infinity, centerY: '0.3' }), {
      zoom: 0,
      centerX: 0.5,
      centerY: 0.5,
    });
  });

  test('a state keeps a known attribute and short non-empty strings only', () => {
    assert.deepEqual(normalizePackMapState(null), {
      version: PACK_MAP_PROTOCOL_VERSION,
      pack: null,
      after: null,
      repository: null,
      attribute: 'type',
      recording: null,
      camera: { zoom: 0, centerX: 0.5, centerY: 0.5 },
      family: null,
      seeks: false,
    });
    const family = 'ab'.repeat(20);
    const kept = normalizePackMapState({
      pack: '/r/.git/objects/pack/pack-1.pack',
      after: '/tmp/preview/pack/pack-2.pack',
      repository: '/r/.git',
      attribute: 'family',
      recording: '/tmp/a.psrec',
      camera: { zoom: 2, centerX: 0.1, centerY: 0.2 },
      family,
      seeks: true,
    });
    assert.deepEqual(kept, {
      version: PACK_MAP_PROTOCOL_VERSION,
      pack: '/r/.git/objects/pack/pack-1.pack',
      after: '/tmp/preview/pack/pack-2.pack',
      repository: '/r/.git',
      attribute: 'family',
      recording: '/tmp/a.psrec',
      camera: { zoom: 2, centerX: 0.1, centerY: 0.2 },
      family,
      seeks: true,
    });
    const hostile = normalizePackMapState({
      pack: 'x'.repeat(4097),
      after: 7,
      repository: '',
      attribute: '<script>',
      recording: 42,
      family: 'ZZ'.repeat(20),
      seeks: 'yes',
    });
    assert.deepEqual(
      [
        hostile.pack,
        hostile.after,
        hostile.repository,
        hostile.attribute,
        hostile.recording,
        hostile.family,
        hostile.seeks,
      ],
      [null, null, null, 'type', null, null, false],
    );
  });
});

describe('Repack Preview state', () => {
  test('keeps a run only when it holds a repack-preview/1 result', () => {
    const run = {
      request: { label: 'Custom' },
      repositoryName: 'r',
      repositoryId: '/r/.git',
      result: { schema: 'packscope.repack-preview/1' },
    };
    assert.deepEqual(normalizeRepackPreviewState({ run }), { version: REPACK_PREVIEW_PROTOCOL_VERSION, run });
    for (const bad of [
      undefined,
      null,
      {},
      { run: null },
      { run: { ...run, result: null } },
      { run: { ...run, result: { schema: 'packscope.stats/1' } } },
      { run: { result: run.result } },
    ]) {
      assert.deepEqual(
        normalizeRepackPreviewState(bad),
        { version: REPACK_PREVIEW_PROTOCOL_VERSION, run: null },
        JSON.stringify(bad),
      );
    }
  });
});

describe('Cache Lab state', () => {
  test('valid fields are kept, invalid ones fall back to the defaults', () => {
    assert.deepEqual(normalizeCacheLabState('garbage', ['git']), defaultCacheLabState(['git']));
    const state = normalizeCacheLabState(
      {
        recording: '/tmp/a.psrec',
        segment: 2,
        compareRecording: '/tmp/b.psrec',
        limits: [0, 1048576],
        policies: ['git', 'belady'],
        metric: 'inflatedBytes',
        sweepView: 'relative-git',
        zeroApart: false,
        tab: 'locality',
        measureRuns: 5,
      },
      ['git'],
    );
    assert.equal(state.version, CACHE_LAB_PROTOCOL_VERSION);
    assert.deepEqual(
      [
        state.recording,
        state.segment,
        state.compareRecording,
        state.limits,
        state.policies,
        state.metric,
        state.sweepView,
        state.zeroApart,
        state.tab,
        state.measureRuns,
      ],
      [
        '/tmp/a.psrec',
        2,
        '/tmp/b.psrec',
        [0, 1048576],
        ['git', 'belady'],
        'inflatedBytes',
        'relative-git',
        false,
        'locality',
        5,
      ],
    );
    const bad = normalizeCacheLabState(
      {
        recording: '',
        segment: 0,
        limits: [-1],
        policies: [''],
        metric: 'x',
        sweepView: 'nope',
        zeroApart: 'yes',
        tab: 'other',
        measureRuns: 51,
      },
      ['git'],
    );
    assert.deepEqual(bad, defaultCacheLabState(['git']));
  });

  test('a running sweep is said to be running, never "No sweep yet. Press Run"', () => {
    assert.deepEqual(sweepPlaceholder(true, true), {
      summary: 'Sweeping… The table and the chart appear when the sweep ends.',
      chart: 'Sweeping…',
    });
    assert.deepEqual(sweepPlaceholder(false, true, '40% (8 of 20 cells)'), {
      summary: 'Sweeping: 40% (8 of 20 cells) The table and the chart appear when the sweep ends.',
      chart: 'Sweeping: 40% (8 of 20 cells)',
    });
    assert.doesNotMatch(sweepPlaceholder(true, true).summary, /No sweep yet/);
    assert.equal(sweepPlaceholder(true, false).summary, 'No sweep yet. Press Run to replay this recording.');
    assert.match(sweepPlaceholder(false, false).summary, /^Choose a recording/);
  });
});
