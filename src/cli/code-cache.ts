/**
 * What the packscope command's entry (dist/cli.js, launcher.ts) does: runs the CLI's bundle (dist/cli-main.js, src/cli/main.ts)
 * compiled with a V8 code cache kept in the user's model cache directory. Compiling the 700 KB bundle
 * was 16–80 ms of every command (bench/README.md, "Persisted reopen"); from the code cache it is a
 * few. Node 20 has no module.enableCompileCache, hence vm.Script's cachedData.
 *
 * What V8 reads from a code cache becomes the program, so the file is trusted as a model file is
 * (docs/security.md, "The code cache"): sealed under the cache's private key (sealed-file.ts), for
 * exactly this bundle's bytes (its SHA-256), this node and V8, this architecture. Anything else (no
 * key, a seal that does not verify, another bundle, V8's own refusal) compiles from source as if
 * there were no cache, and a new cache is written when the command ends. Written only where a key
 * already is: the model cache made that directory and key, and it never does inside a repository.
 */
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import { createRequire } from 'node:module';
import * as path from 'node:path';
import * as vm from 'node:vm';
import { writeAll, writeFileAtomically } from '../core/atomic-file.ts';
import { defaultModelCacheDir, readCacheKey } from '../core/model/model-cache-key.ts';
import { largestSealedFile, openSealedFile, sealFile, type SealedFormat } from '../core/model/sealed-file.ts';

export const CODE_CACHE_FILE: SealedFormat = {
  magic: Buffer.from('PSV8CODE', 'latin1'),
  version: 1,
  maxHeaderBytes: 4096,
  what: 'code cache',
  seal: 'gmac-aes-256',
};
/** V8's cache of this bundle is about 0.3 MB; a file far past that is not one PackScope wrote. */
const LARGEST_CODE_CACHE = largestSealedFile(CODE_CACHE_FILE, 64 << 20);

/** What a code cache is valid for; any field that differs makes it unusable. */
export interface CodeCacheIdentity {
  bundleSha256: string;
  node: string;
  v8: string;
  arch: string;
}

interface CodeCache {
  file: string;
  key: Buffer;
  identity: CodeCacheIdentity;
  /** V8's data, when a sound cache for this identity was found. */
  data?: Buffer;
}

/** What a code cache of the bundle `source` must have been made for to be used by this process. */
export function codeCacheIdentity(source: Buffer): CodeCacheIdentity {
  return {
    bundleSha256: createHash('sha256').update(source).digest('hex'),
    node: process.version,
    v8: process.versions.v8,
    arch: process.arch,
  };
}

/**
 * The code cache of `bundle` in the default model cache directory (PACKSCOPE_CACHE_DIR…; not
 * --cache-dir, which is not parsed yet): undefined when that directory has no private key, or
 * PACKSCOPE_CODE_CACHE=0.
 */
export function findCodeCache(bundle: string, source: Buffer): CodeCache | undefined {
  if (process.env.PACKSCOPE_CODE_CACHE === '0') return undefined;
  const directory = defaultModelCacheDir();
  const key = readCacheKey(directory);
  if (key === undefined) return undefined;
  // One file per installed bundle and set of node's options (V8 refuses a cache made under other
  // flags, so two sets sharing a file would replace each other's at every run); a rebuild of the
  // bundle replaces its file rather than adding another.
  const where = createHash('sha256')
    .update([path.resolve(bundle), ...process.execArgv, process.env.NODE_OPTIONS ?? ''].join('\0'))
    .digest('hex')
    .slice(0, 16);
  const file = path.join(directory, `cli-${where}.v8cache`);
  const identity = codeCacheIdentity(source);
  const cache: CodeCache = { file, key, identity };
  if (!fs.existsSync(file)) return cache;
  try {
    const sealed = openSealedFile(file, CODE_CACHE_FILE, key, LARGEST_CODE_CACHE, 'code cache is too large');
    const stored = JSON.parse(sealed.headerText) as Partial<CodeCacheIdentity> | null;
    const matches = (Object.keys(identity) as (keyof CodeCacheIdentity)[]).every(
      (field) => stored?.[field] === identity[field],
    );
    if (matches) cache.data = sealed.bytes.subarray(sealed.bodyStart, sealed.bodyEnd);
  } catch {
    // Not sound: compiled from source, and replaced when the command ends.
  }
  return cache;
}

/** Writes V8's cache of `script` as `cache` says, atomically and private to the user. */
export function saveCodeCache(cache: CodeCache, script: vm.Script): void {
  const bytes = sealFile(CODE_CACHE_FILE, cache.identity, [script.createCachedData()], cache.key);
  writeFileAtomically(cache.file, 0o600, (fd) => writeAll(fd, bytes));
}

/**
 * Runs `bundle` (a CommonJS bundle) as Node would require it, compiled with `cache.data` when
 * there is some; when V8 refuses it or there was none, saves a fresh cache as the process exits
 * (then every function the command compiled is in it). Returns whether V8 used the cache.
 */
export function runBundle(bundle: string, source: Buffer, cache: CodeCache | undefined): boolean {
  // Node's own CommonJS wrapper, on the bundle's first line, so that every line keeps its number.
  const wrapped = `(function (exports, require, module, __filename, __dirname) { ${source.toString('utf8')}\n});`;
  const script = new vm.Script(wrapped, {
    filename: bundle,
    ...(cache?.data ? { cachedData: cache.data } : {}),
    // Node 20.12 and later: an import() in the bundle resolves as in any module.
    ...(vm.constants?.USE_MAIN_CONTEXT_DEFAULT_LOADER
      ? { importModuleDynamically: vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER }
      : {}),
  });
  const used = cache?.data !== undefined && script.cachedDataRejected !== true;
  if (cache && !used)
    process.once('exit', () => {
      try {
        saveCodeCache(cache, script);
      } catch {
        // A cache that cannot be written only costs the next command its compile.
      }
    });
  const run = script.runInThisContext() as (
    exports: object,
    require: NodeJS.Require,
    module: { exports: object },
    filename: string,
    dirname: string,
  ) => void;
  const module = { exports: {} };
  run.call(module.exports, module.exports, createRequire(bundle), module, bundle, path.dirname(bundle));
  return used;
}

/** Runs the CLI's bundle beside `directory` (dist/), from its code cache when there is a sound one. */
export function launchBundle(directory: string): void {
  const bundle = path.join(directory, 'cli-main.js');
  const source = fs.readFileSync(bundle);
  let cache: CodeCache | undefined;
  try {
    cache = findCodeCache(bundle, source);
  } catch {
    cache = undefined;
  }
  runBundle(bundle, source, cache);
}
