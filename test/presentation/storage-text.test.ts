// The Packs view's words for pack kinds and the Storage node (src/presentation/storage-text.ts).
import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { packLayoutLines, packMarkersText, storageRows, whereaboutsText } from '../../src/presentation/storage-text.ts';
import type { PackLayout, RepositoryListing } from '../../src/protocol/server-protocol.ts';

const pack = (fields: Partial<PackLayout>): PackLayout => ({
  pack: '/r/.git/objects/pack/pack-1.pack',
  name: 'pack-1.pack',
  objectsDir: '/r/.git/objects',
  local: true,
  kind: 'normal',
  markers: [],
  inMidx: false,
  searchOrder: 0,
  ...fields,
});

test('a pack row starts with its kind and markers, the kind standing for its own marker file', () => {
  assert.equal(packMarkersText(pack({})), '');
  assert.equal(packMarkersText(pack({ kind: 'cruft', markers: ['mtimes'], inMidx: true })), 'cruft · in MIDX');
  assert.equal(
    packMarkersText(pack({ kind: 'promisor', markers: ['keep', 'promisor', 'bitmap', 'rev'] })),
    'promisor · .keep · .bitmap · .rev',
  );
  assert.deepEqual(packLayoutLines(pack({ markers: ['keep'], keepProblem: 'not a regular file', searchOrder: 1 })), [
    'kind: normal',
    'marker files: .keep',
    'kept (.keep unreadable: not a regular file)',
    'searched 2nd by git (local before alternates, newer first)',
  ]);
});

test('the Storage rows: loose objects with count-objects -v in the tooltip, the MIDX with its packs, the alternates', () => {
  const listing: RepositoryListing = {
    id: '/r/.git',
    name: 'r',
    gitDir: '/r/.git',
    objectFormat: 'sha1',
    packs: [],
    storage: {
      loose: {
        count: 3,
        size: 12,
        inPack: 40,
        packs: 2,
        sizePack: 9,
        garbage: 1,
        sizeGarbage: 0,
        garbageFiles: [{ path: '/r/.git/objects/ab/junk', reason: 'garbage found' }],
        looseBytesOnDisk: 12288,
        packBytes: 9300,
      },
      midx: [
        {
          objectsDir: '/r/.git/objects',
          file: '/r/.git/objects/pack/multi-pack-index',
          layers: 1,
          objects: 40,
          packs: ['pack-aaaaaaaaaa.idx', 'pack-bbbbbbbbbb.idx'],
          missingPacks: [],
          preferredPack: 'pack-bbbbbbbbbb.idx',
          bitmap: true,
          bitmapCommits: 4,
          reverseIndexChunk: true,
          reverseIndexFile: false,
        },
      ],
      alternates: ['/elsewhere/objects'],
    },
  };
  const rows = storageRows(listing);
  assert.deepEqual(
    rows.map((r) => [r.label, r.description]),
    [
      ['Loose objects', '3 objects · 12.0 KiB on disk · 1 garbage file'],
      ['Multi-pack-index', '2 packs · 40 objects · bitmap (4 commits) · preferred pack-bbbbbbb…'],
      ['Alternate', '/elsewhere/objects'],
    ],
  );
  assert.equal(
    rows[0]!.tooltip,
    'git count-objects -v: count 3, size 12, in-pack 40, packs 2, size-pack 9, garbage 1, size-garbage 0',
  );
  assert.deepEqual(
    rows[1]!.rows!.map((r) => [r.label, r.description]),
    [
      ['pack-aaaaaaaaaa.idx', ''],
      ['pack-bbbbbbbbbb.idx', 'preferred'],
    ],
  );
});

test('where git reads an object: the answering pack, through the MIDX or not, and the other copies', () => {
  assert.equal(
    whereaboutsText({
      answeredBy: { pack: '/p/pack-a.pack', viaMidx: true },
      alsoInPacks: ['/p/pack-b.pack'],
      alsoLoose: ['/o/ab/cd'],
    }),
    'git reads it from pack-a.pack (through the multi-pack-index) · also in 1 other pack: pack-b.pack · also loose',
  );
  assert.equal(
    whereaboutsText({ answeredBy: { pack: '/p/pack-a.pack', viaMidx: false }, alsoInPacks: [], alsoLoose: [] }),
    'git reads it from pack-a.pack',
  );
});

test('a promisor pack’s tooltip says what promisor means, for git and for a repack preview', () => {
  assert.equal(
    packLayoutLines(pack({ kind: 'promisor', markers: ['promisor'] }))[0],
    'kind: promisor (fetched from a promisor remote of a partial clone: objects it refers to may be missing here, and git fetches them when it needs them; a repack preview leaves its objects out, as git repack does, and fetches nothing)',
  );
});
