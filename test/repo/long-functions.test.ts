// No function in src/ or media/ over 80 lines without a sentence saying why it stays long: the check of
// scripts/long-functions.mjs, run on src/ and media/, and on planted files to show that the scan sees both cases.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';

const root = path.resolve(import.meta.dirname, '..', '..');
const script = path.join(root, 'scripts', 'long-functions.mjs');

function unexplained(folder: string): { status: number | null; listed: string[] } {
  const run = spawnSync(process.execPath, [script, '--unexplained', folder], { cwd: root, encoding: 'utf8' });
  assert.equal(run.stderr, '');
  return { status: run.status, listed: run.stdout.split('\n').filter((line) => line !== '') };
}

for (const folder of ['src', 'media']) {
  test(`every function of ${folder}/ over 80 lines says why it stays long (// Stays long: …)`, () => {
    const { status, listed } = unexplained(folder);
    assert.deepEqual(listed, [], 'split these into named steps, or say above each why it stays long');
    assert.equal(status, 0);
  });
}

test('the scan finds a long function, an arrow function and a method, and accepts the comment above one', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'packscope-long-functions-'));
  try {
    const body = Array.from({ length: 85 }, (_, i) => `  total += ${i};`).join('\n');
    fs.writeFileSync(
      path.join(dir, 'planted.ts'),
      [
        'export function bare(): number {',
        '  let total = 0;',
        body,
        '  return total;',
        '}',
        '',
        '/** What it does. */',
        '// Stays long: one linear script; splitting it would hide its order.',
        'export function explained(): number {',
        '  let total = 0;',
        body,
        '  return total;',
        '}',
        '',
        'export const arrow = (): number => {',
        '  let total = 0;',
        body,
        '  return total;',
        '};',
        '',
        'export class Holder {',
        '  method(): number {',
        '    let total = 0;',
        body,
        '    return total;',
        '  }',
        '}',
        '',
      ].join('\n'),
    );
    const { status, listed } = unexplained(dir);
    assert.deepEqual(
      listed.map((line) => line.replace(`${dir}/`, '')),
      ['planted.ts:1 bare 89', 'planted.ts:183 arrow 89', 'planted.ts:274 method 89'],
    );
    assert.equal(status, 1);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
