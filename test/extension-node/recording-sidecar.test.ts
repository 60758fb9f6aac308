/**
 * The recording sidecar (`<recording>.json`) is written as every file PackScope writes: through a
 * fresh temporary name created exclusively without following links, then renamed. A symbolic link
 * planted at the name the extension used to write through (`<sidecar>.<pid>.tmp`), or at the
 * sidecar itself, is never followed: the file it names stays as it was.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import {
  readSidecar,
  SIDECAR_VERSION,
  sidecarPath,
  writeSidecar,
  type RecordingSidecar,
} from '../../src/extension/recording-sidecar.ts';
import { tempDir } from '../support/git.ts';

const SIDECAR: RecordingSidecar = {
  version: SIDECAR_VERSION,
  source: 'terminal',
  mode: 'exact',
  recordedLimit: 0,
  startedAt: '2024-01-31T12:05:01.000Z',
  session: 's1',
  part: 1,
  hostPid: process.pid,
};

test('a link planted at the old predictable temporary name is not followed', (t) => {
  const root = tempDir(t);
  const recordings = path.join(root, 'recordings');
  fs.mkdirSync(recordings);
  const victim = path.join(root, 'victim.txt');
  fs.writeFileSync(victim, 'keep me\n');
  const live = path.join(recordings, 'live-s1.trace');
  fs.writeFileSync(live, '');
  const planted = `${sidecarPath(live)}.${process.pid}.tmp`;
  fs.symlinkSync(victim, planted);

  writeSidecar(live, SIDECAR);

  assert.equal(fs.readFileSync(victim, 'utf8'), 'keep me\n', 'the file the link names is unchanged');
  assert.equal(fs.readlinkSync(planted), victim, 'the planted link is left where it was');
  assert.ok(fs.lstatSync(sidecarPath(live)).isFile(), 'the sidecar is a regular file, not the link moved');
  assert.deepEqual(readSidecar(live), SIDECAR);
  // Nothing else is left beside it: the temporary file was renamed into place.
  assert.deepEqual(fs.readdirSync(recordings).sort(), [
    'live-s1.trace',
    'live-s1.trace.json',
    `live-s1.trace.json.${process.pid}.tmp`,
  ]);
});

test('a link planted at the sidecar itself is replaced, not written through', (t) => {
  const root = tempDir(t);
  const victim = path.join(root, 'victim.txt');
  fs.writeFileSync(victim, 'keep me\n');
  const recording = path.join(root, 'git-log-20240131-120501.recording');
  fs.writeFileSync(recording, '');
  fs.symlinkSync(victim, sidecarPath(recording));

  writeSidecar(recording, { ...SIDECAR, source: 'command', args: ['log', '-p'] });

  assert.equal(fs.readFileSync(victim, 'utf8'), 'keep me\n');
  assert.ok(fs.lstatSync(sidecarPath(recording)).isFile());
  assert.deepEqual(readSidecar(recording)?.args, ['log', '-p']);
});
