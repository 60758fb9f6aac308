/**
 * The extension and the directories `packscope sizes` files a path under, against Python's own
 * os.path.splitext and os.path.dirname (which git filter-repo --analyze calls on the path's bytes):
 * dotfiles, trailing dots, runs of dots, dots in directory names, bytes that are not UTF-8.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import { directoriesOf, extensionOf } from '../../src/core/report/history-sizes.ts';

const NAMES = [
  'Makefile',
  '.bashrc',
  '.a.b',
  'a.',
  '..',
  '...x',
  '..x.y',
  'a.b.c',
  'archive.tar.gz',
  'dir.d/file',
  'dir.d/.hidden',
  'dir.d/x.',
  'a/b/c/d/e.txt',
  'a/.b/.c',
  'x/y.z/w',
  'latin1-\xe9\xff.dat',
  'tab\there.txt',
  'new\nline.c',
];

test('extensions and directories as os.path.splitext and os.path.dirname give them', () => {
  const script = `
import os, sys, json
names = [bytes.fromhex(h) for h in json.load(sys.stdin)]
def dirnames(p):
    out = []
    while True:
        p = os.path.dirname(p)
        out.append(p.hex())
        if p == b'':
            return out
print(json.dumps([[os.path.splitext(n)[1].hex(), dirnames(n)] for n in names]))
`;
  const run = spawnSync('python3', ['-c', script], {
    input: JSON.stringify(NAMES.map((n) => Buffer.from(n, 'latin1').toString('hex'))),
    encoding: 'utf8',
  });
  assert.equal(run.status, 0, run.stderr);
  const expected = JSON.parse(run.stdout) as [string, string[]][];
  const latin1 = (hex: string): string => Buffer.from(hex, 'hex').toString('latin1');
  for (const [i, name] of NAMES.entries()) {
    assert.equal(extensionOf(name), latin1(expected[i]![0]), JSON.stringify(name));
    assert.deepEqual(directoriesOf(name), expected[i]![1].map(latin1), JSON.stringify(name));
  }
});
