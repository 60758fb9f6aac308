/**
 * One in-process measurement, run by pack-engine.bench.ts in a fresh `node --expose-gc --import tsx`
 * process so that no measurement inherits another's heap, JIT state or cached model. Prints one
 * JSON line on stdout.
 *
 *   measure.ts build <pack> <runs>      full buildPackModel (result sizes), best of <runs>
 *   measure.ts scan  <pack> <runs>      header-only buildPackModel({resultSizes:false}), best of <runs>
 *   measure.ts heap  <pack>             retained bytes of one full model (needs --expose-gc)
 *   measure.ts store <pack> <dir>       one ModelStore(dir).load(): build+save, or reopen
 */
import * as path from 'node:path';
import {
  buildPackModel,
  packFilesFor,
  parallelBuildFrom,
  type ParallelBuild,
} from '../src/core/model/build-pack-model.ts';
import { ModelStore, readEveryColumn } from '../src/core/model/model-store.ts';
import { packStats } from '../src/core/model/pack-stats.ts';
import { hashAlgorithmNear } from '../src/core/model/repository.ts';

const [mode, packPath, arg] = process.argv.slice(2);
if (!mode || !packPath) throw new Error('usage: measure.ts build|scan|heap|store <pack> [runs|dir]');
const files = packFilesFor(packPath);
const hash = hashAlgorithmNear(files.pack);
const gc = (globalThis as { gc?: () => void }).gc;
/**
 * The build the CLI makes: its scan split over the cores with the scan worker of the pinned dist/
 * beside this bundle (.bench/build/dist/scan-worker.js), unless PACKSCOPE_SCAN_WORKERS=0 asks for
 * one thread. Run from source (tsx) there is no bundled worker, and the build is one thread too.
 */
const parallel: ParallelBuild | undefined =
  process.env.PACKSCOPE_SCAN_WORKERS === '0' ? undefined : parallelBuildFrom(path.join(__dirname, 'dist'));

function collect(): void {
  if (!gc) return;
  gc();
  gc();
}

function timed(resultSizes: boolean, runs: number): object {
  const times: number[] = [];
  let bestPhases: Record<string, number> = {};
  let count = 0;
  let columnBytes = 0;
  for (let run = 0; run < runs; run++) {
    collect();
    const phaseTimes: Record<string, number> = {};
    const started = performance.now();
    const model = buildPackModel(files, { hash, resultSizes, phaseTimes, parallel });
    const ms = performance.now() - started;
    if (times.length === 0 || ms < Math.min(...times)) bestPhases = phaseTimes;
    times.push(ms);
    count = model.count;
    columnBytes = model.columnBytes;
  }
  return {
    count,
    columnBytes,
    times,
    best: Math.min(...times),
    phases: bestPhases,
    scanWorkers: parallel?.workers ?? 0,
  };
}

function heap(): object {
  if (!gc) throw new Error('heap needs node --expose-gc');
  const read = (): { heapUsed: number; external: number; arrayBuffers: number; total: number } => {
    const m = process.memoryUsage();
    // arrayBuffers is already part of external (Node docs); adding both would count buffers twice.
    return { heapUsed: m.heapUsed, external: m.external, arrayBuffers: m.arrayBuffers, total: m.heapUsed + m.external };
  };
  collect();
  const before = read();
  // One thread: a parallel build keeps the idx names in a SharedArrayBuffer, which
  // process.memoryUsage() does not count (external grew by the columns alone, 12–14 B per object,
  // when the names were shared); the columns and names are the same either way.
  let model: ReturnType<typeof buildPackModel> | undefined = buildPackModel(files, { hash });
  collect();
  const after = read();
  const count = model.count;
  const hashSize = model.hash.size;
  const result = {
    count,
    hashSize,
    before,
    after,
    retained: after.total - before.total,
    nameTableBytes: count * hashSize,
    idxBytes: model.index.bytes.length,
    columnBytes: model.columnBytes,
  };
  model = undefined;
  return result;
}

/**
 * A load as `stats` makes it: the model, then the stats of the pack (since format 5 a stored model's
 * columns are read when first used, so a load alone reads only the header). `everyColumnMs`: then
 * every column and stored derived column read too, as the server's model worker does.
 */
function store(directory: string): object {
  const started = performance.now();
  const loaded = new ModelStore(directory, undefined, { parallel }).load(files, { hash });
  packStats(loaded.model, 10);
  const ms = performance.now() - started;
  const { model } = loaded;
  readEveryColumn(model);
  const everyColumnMs = performance.now() - started;
  return { ms, everyColumnMs, source: loaded.source, rebuiltBecause: loaded.rebuiltBecause, count: model.count };
}

let result: object;
switch (mode) {
  case 'build':
    result = timed(true, Number(arg ?? 1));
    break;
  case 'scan':
    result = timed(false, Number(arg ?? 1));
    break;
  case 'heap':
    result = heap();
    break;
  case 'store':
    if (!arg) throw new Error('store needs a directory');
    result = store(arg);
    break;
  default:
    throw new Error(`unknown mode ${mode}`);
}
process.stdout.write(`${JSON.stringify(result)}\n`);
