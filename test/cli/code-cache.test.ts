import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { CODE_CACHE_FILE, codeCacheIdentity, runBundle } from '../../src/cli/code-cache.ts';
import { readOrCreateCacheKey } from '../../src/core/model/model-cache-key.ts';
import { largestSealedFile, openSealedFile, sealFile } from '../../src/core/model/sealed-file.ts';
import { randomBytes } from 'node:crypto';
import { cliPath, runCli, tempDir } from '../support/git.ts';

/**
 * dist/cli.js runs the CLI's bundle (dist/cli-main.js) from a V8 code cache sealed under the model
 * cache's key (src/cli/code-cache.ts, docs/security.md "The code cache"). Whatever is wrong with
 * that cache, the command runs as without it, and the cache is written afresh.
 */

const bundle = path.join(path.dirname(cliPath), 'cli-main.js');
const version = (): string => `packscope ${JSON.parse(fs.readFileSync('package.json', 'utf8')).version}\n`;

function codeCaches(dir: string): string[] {
  return fs.readdirSync(dir).filter((name) => name.endsWith('.v8cache'));
}

function runVersion(cacheDir: string): void {
  const result = runCli(['--version'], { env: { PACKSCOPE_CACHE_DIR: cacheDir } });
  assert.equal(result.stderr, '');
  assert.equal(result.status, 0);
  assert.equal(result.stdout.toString('utf8'), version());
}

test('no key in the cache directory: no code cache is written, and the command runs', (t) => {
  const cacheDir = tempDir(t, 'packscope-code-cache-');
  runVersion(cacheDir);
  assert.deepEqual(fs.readdirSync(cacheDir), []);
});

test('with a key: the first run writes a private code cache, the next uses it as it is', (t) => {
  const cacheDir = tempDir(t, 'packscope-code-cache-');
  readOrCreateCacheKey(cacheDir);
  runVersion(cacheDir);
  const [name] = codeCaches(cacheDir);
  assert.ok(name, 'a code cache was written');
  const file = path.join(cacheDir, name);
  assert.equal(fs.statSync(file).mode & 0o777, 0o600);
  const written = fs.readFileSync(file);
  runVersion(cacheDir);
  assert.deepEqual(fs.readFileSync(file), written, 'a sound cache is used, not rewritten');
  assert.deepEqual(codeCaches(cacheDir), [name]);
});

test('a tampered code cache is not used: the command runs, and a sound cache replaces it', (t) => {
  const cacheDir = tempDir(t, 'packscope-code-cache-');
  readOrCreateCacheKey(cacheDir);
  runVersion(cacheDir);
  const file = path.join(cacheDir, codeCaches(cacheDir)[0]!);
  const tampered = fs.readFileSync(file);
  tampered[tampered.length >> 1] ^= 0x01;
  fs.writeFileSync(file, tampered);
  runVersion(cacheDir);
  const rewritten = fs.readFileSync(file);
  assert.notDeepEqual(rewritten, tampered);
  runVersion(cacheDir);
  assert.deepEqual(fs.readFileSync(file), rewritten, 'the rewritten cache is sound and used');
});

test("V8's own data sealed under another key is not used: it is replaced", (t) => {
  const cacheDir = tempDir(t, 'packscope-code-cache-');
  const key = readOrCreateCacheKey(cacheDir);
  runVersion(cacheDir);
  const file = path.join(cacheDir, codeCaches(cacheDir)[0]!);
  const sound = openSealedFile(file, CODE_CACHE_FILE, key, largestSealedFile(CODE_CACHE_FILE, 64 << 20), 'large');
  const data = sound.bytes.subarray(sound.bodyStart, sound.bodyEnd);
  const otherKey = sealFile(CODE_CACHE_FILE, JSON.parse(sound.headerText), [data], randomBytes(32));
  fs.writeFileSync(file, otherKey);
  runVersion(cacheDir);
  assert.notDeepEqual(fs.readFileSync(file), otherKey, 'a cache another key sealed is compiled around and replaced');
});

test('a sealed cache that V8 rejects (not its data) falls back to compiling, and is replaced', (t) => {
  const cacheDir = tempDir(t, 'packscope-code-cache-');
  const key = readOrCreateCacheKey(cacheDir);
  runVersion(cacheDir);
  const file = path.join(cacheDir, codeCaches(cacheDir)[0]!);
  // Sealed with the right key for exactly this bundle, node and V8, but not V8's data.
  const identity = codeCacheIdentity(fs.readFileSync(bundle));
  const rejected = sealFile(CODE_CACHE_FILE, identity, [Buffer.alloc(4096, 0x5a)], key);
  fs.writeFileSync(file, rejected);
  runVersion(cacheDir);
  assert.notDeepEqual(fs.readFileSync(file), rejected, 'replaced by a cache V8 made');
  const stats = runCli(['stats', '--no-cache', path.join(cacheDir, 'missing.pack')], {
    env: { PACKSCOPE_CACHE_DIR: cacheDir },
  });
  assert.equal(stats.status, 1, 'a command that fails still fails as it did');
  assert.match(stats.stderr, /^packscope: /);
});

test('stack traces of the bundle name its file and line', (t) => {
  const dir = tempDir(t, 'packscope-code-cache-');
  const file = path.join(dir, 'bundle.js');
  const source = Buffer.from("'use strict';\nmodule.exports.fine = true;\nthrow new Error('from line three');\n");
  fs.writeFileSync(file, source);
  assert.throws(
    () => runBundle(file, source, undefined),
    (error: Error) => error.stack!.includes(`${file}:3:`),
  );
});
