/**
 * The Pack Map's bars on a real pack, git.git's by default: first picture within 1 s of
 * the model being loaded, zoom/pan frames under 16 ms at every level, the webview's memory under
 * 200 MB. Everything the map worker does is measured in process with the same code
 * (src/core/map/pack-map.ts; the worker, src/server/workers/map-worker.ts, calls only that), and the
 * webview in a real Chromium (Debian's, through playwright-core, as test/webview/pack-map.mjs): the
 * bundled dist/webview/pack-map.js under the panel's page, its tiles answered by the engine over the
 * same model.
 *
 *   node --import tsx bench/pack-map.bench.ts [--repo DIR] [--runs N] [--no-browser] [--log-commits N]
 *
 * --repo: a repository (bare or not; read only, never written to; default git.git's mirror at
 * /work/.mirror/git+git/repo when there, else the generated repository of bench/generate.ts);
 * its largest pack is mapped. The model is read from the bench's model cache (built and persisted
 * there the first time, outside the repository). A recording for the heat overlay is made with
 * GIT_TRACE_PACK_ACCESS of `git log --raw -n N` (default 3000) in the repository: git only reads.
 *
 * Reference: `git show-index < <idx>` (every object's offset, the least any tool lays a pack out
 * from), timed in the same run; the first picture is printed as a ratio of it.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { deflateRawSync } from 'node:zlib';
import { MAP_ATTRIBUTES, MAX_MAP_ORDER } from '../src/common/pack-map-geometry.ts';
import { hashAlgorithmByName } from '../src/core/format/hash-algorithm.ts';
import { PackMap } from '../src/core/map/pack-map.ts';
import { ModelStore } from '../src/core/model/model-store.ts';
import type { PackModel } from '../src/core/model/pack-model.ts';
import { benchModelCacheRoot, DEFAULT_HISTORY, generatedPack, projectRoot } from './generate.ts';

// The functions given to page.evaluate run in Chromium: the few browser globals they use (this file is type-checked without the DOM library).
interface PageElement {
  dataset: Record<string, string | undefined>;
  getBoundingClientRect(): { left: number; top: number; width: number; height: number };
}
declare const document: {
  getElementById(id: string): PageElement | null;
  addEventListener(type: string, listener: () => void): void;
};
declare const window: { postMessage(message: unknown, origin: string): void };
declare function requestAnimationFrame(callback: () => void): number;

const TILE_CELLS = 256;
const BARS = { firstPictureMs: 1000, frameMs: 16, heapMB: 200 };

const { values } = parseArgs({
  options: {
    repo: { type: 'string' },
    runs: { type: 'string', default: '3' },
    'no-browser': { type: 'boolean', default: false },
    'log-commits': { type: 'string', default: '3000' },
  },
});
const runs = Math.max(1, Number(values.runs) || 3);
const log = (line: string): void => void process.stdout.write(`${line}\n`);
const GIT_GIT = '/work/.mirror/git+git/repo';
// Without --repo: git.git's mirror where it is, else the bench's generated repository (bench/generate.ts; cached in .bench/).
const repo =
  values.repo !== undefined
    ? path.resolve(values.repo)
    : fs.existsSync(GIT_GIT)
      ? GIT_GIT
      : path.dirname(path.dirname(path.dirname(generatedPack(DEFAULT_HISTORY, log).pack)));
const ms = (x: number): string => `${x.toFixed(x < 10 ? 2 : 1)} ms`;
const verdict = (ok: boolean): string => (ok ? 'meets the bar' : 'MISSES the bar');

function gitDirOf(dir: string): string {
  const result = spawnSync('git', ['-C', dir, 'rev-parse', '--absolute-git-dir'], { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`${dir}: not a git repository (${result.stderr.trim()})`);
  return result.stdout.trim();
}

function best<T>(n: number, work: () => T): { ms: number; value: T } {
  let bestMs = Infinity;
  let value!: T;
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    value = work();
    bestMs = Math.min(bestMs, performance.now() - t);
  }
  return { ms: bestMs, value };
}

// ---- The pack and its model -------------------------------------------------------------------
const gitDir = gitDirOf(repo);
const packDir = path.join(gitDir, 'objects', 'pack');
const packs = fs
  .readdirSync(packDir)
  .filter((f) => f.endsWith('.pack'))
  .map((f) => path.join(packDir, f));
if (packs.length === 0) throw new Error(`${packDir}: no pack`);
const packFile = packs.sort((a, b) => fs.statSync(b).size - fs.statSync(a).size)[0]!;
const files = { pack: packFile, idx: packFile.replace(/\.pack$/, '.idx') };
const objectFormat =
  spawnSync('git', ['--git-dir', gitDir, 'rev-parse', '--show-object-format'], { encoding: 'utf8' }).stdout.trim() ||
  'sha1';
const hash = hashAlgorithmByName(objectFormat);
if (!hash) throw new Error(`unknown object format ${objectFormat}`);
const cacheDir = path.join(benchModelCacheRoot, 'pack-map');
fs.mkdirSync(cacheDir, { recursive: true });
log(`pack map bench: ${packFile} (${(fs.statSync(packFile).size / 2 ** 20).toFixed(0)} MiB), model cache ${cacheDir}`);
const store = new ModelStore(cacheDir);
{
  const t = performance.now();
  store.load(files, { hash });
  log(`model ready in ${ms(performance.now() - t)} (built and persisted the first time; read from the cache after)`);
}
const loaded = best(runs, () => store.load(files, { hash }).model);
const model: PackModel = loaded.value;
log(`model load from the cache: ${ms(loaded.ms)} (best of ${runs}); ${model.count.toLocaleString('en-US')} objects`);

// git's reference in the same run.
const gitShowIndex = best(runs, () => {
  const result = spawnSync('git', ['show-index', `--object-format=${objectFormat}`], {
    input: fs.readFileSync(files.idx),
    maxBuffer: 1 << 30,
  });
  if (result.status !== 0) throw new Error(`git show-index: ${result.stderr}`);
  return result.stdout.length;
});
log(`git show-index < idx: ${ms(gitShowIndex.ms)} (best of ${runs})`);

// ---- In process: what the map worker computes --------------------------------------------------
/** What the worker's `info` does (map-worker.ts): the map, then every attribute's legend. */
function infoOf(map: PackMap): number {
  let entries = 0;
  for (const attribute of MAP_ATTRIBUTES) entries += map.legend(attribute).length;
  return entries;
}

/** The tiles the webview asks for first: the whole pack at the order whose cells are about a pixel of a `viewport`-pixel square. */
function firstViewTiles(map: PackMap, viewport: number): { order: number; tiles: [number, number][] } {
  const maxOrder = map.orderFor(1);
  const order = Math.min(maxOrder, Math.ceil(Math.log2(viewport)));
  const perSide = Math.max(1, 2 ** order / TILE_CELLS);
  const tiles: [number, number][] = [];
  for (let y = 0; y < perSide; y++) for (let x = 0; x < perSide; x++) tiles.push([x, y]);
  return { order, tiles };
}

function renderTile(
  map: PackMap,
  order: number,
  attribute: (typeof MAP_ATTRIBUTES)[number],
  tileX: number,
  tileY: number,
): number {
  const size = Math.min(TILE_CELLS, 2 ** order);
  return map.render(order, attribute, { x: tileX * size, y: tileY * size, width: size, height: size }).litCells;
}

const firstPicture = best(runs, () => {
  const map = new PackMap(model);
  infoOf(map);
  const { order, tiles } = firstViewTiles(map, 800);
  for (const [x, y] of tiles) renderTile(map, order, 'type', x, y);
  return { order, tiles: tiles.length };
});
log('');
log(
  `first picture (model loaded → PackMap, legends, the ${firstPicture.value.tiles} tile(s) of order ${firstPicture.value.order} an 800 px view shows): ${ms(firstPicture.ms)}` +
    ` — bar ≤ ${BARS.firstPictureMs} ms: ${verdict(firstPicture.ms <= BARS.firstPictureMs)}; ${(firstPicture.ms / gitShowIndex.ms).toFixed(2)}× git show-index`,
);

// A recording: git log's reads of this pack.
const traceDir = fs.mkdtempSync(path.join(os.tmpdir(), 'packscope-bench-map-'));
const trace = path.join(traceDir, 'log.trace');
try {
  const t = performance.now();
  const ran = spawnSync(
    'git',
    ['--git-dir', gitDir, 'log', '--raw', '-n', String(Number(values['log-commits']) || 3000)],
    { env: { ...process.env, GIT_TRACE_PACK_ACCESS: trace }, stdio: ['ignore', 'ignore', 'pipe'], maxBuffer: 1 << 30 },
  );
  if (ran.status !== 0) throw new Error(`git log: ${ran.stderr}`);
  log(`recording: git log --raw -n ${values['log-commits']} under GIT_TRACE_PACK_ACCESS, ${ms(performance.now() - t)}`);
} catch (error) {
  fs.rmSync(traceDir, { recursive: true, force: true });
  throw error;
}
const byOffset = new Map<number, number>();
for (let n = 0; n < model.count; n++) byOffset.set(model.columns.offset[n]!, n);
const counts = new Uint32Array(model.count);
let traced = 0;
for (const line of fs.readFileSync(trace, 'utf8').split('\n')) {
  const m = / (\S+\.pack) (\d+)$/.exec(line);
  if (!m || path.resolve(m[1]!) !== path.resolve(packFile)) continue;
  const n = byOffset.get(Number(m[2]));
  if (n !== undefined) {
    counts[n]!++;
    traced++;
  }
}
fs.rmSync(traceDir, { recursive: true, force: true });
byOffset.clear();
const overlayBuild = best(runs, () => new PackMap(model, counts));
const overlay = overlayBuild.value;
log(
  `overlay map of ${traced.toLocaleString('en-US')} reads (${overlay.readObjects.toLocaleString('en-US')} objects): built in ${ms(overlayBuild.ms)} (once per recording)`,
);

// Each attribute's colour table (every object's colour, once per attribute and model; PackMap.coloursOf), on a model no map has used yet.
{
  const fresh = store.load(files, { hash }).model;
  const freshMap = new PackMap(fresh);
  const built = MAP_ATTRIBUTES.map((attribute) => {
    const t = performance.now();
    freshMap.render(0, attribute, { x: 0, y: 0, width: 1, height: 1 });
    return `${attribute} ${ms(performance.now() - t)}`;
  });
  log(
    `colour tables, built once per attribute when first drawn (the family's includes the chains' roots): ${built.join(', ')}`,
  );
}

const baseMap = new PackMap(model);
const maxOrder = baseMap.orderFor(1);
log('');
log(
  `tile computation per zoom level (one ${TILE_CELLS}×${TILE_CELLS} tile, or the whole map below order 8; best of ${runs}, the tile at the map's centre):`,
);
log('order  cells/tile  bytes/cell      type      depth     family  disk-size  +recording');
let slowestTile = 0;
for (let order = 0; order <= maxOrder; order++) {
  const perSide = Math.max(1, 2 ** order / TILE_CELLS);
  const tx = Math.floor(perSide / 2);
  const times = MAP_ATTRIBUTES.map((attribute) => best(runs, () => renderTile(baseMap, order, attribute, tx, tx)).ms);
  const withReads = best(runs, () => renderTile(overlay, order, 'type', tx, tx)).ms;
  slowestTile = Math.max(slowestTile, ...times, withReads);
  const size = Math.min(TILE_CELLS, 2 ** order);
  const byAttribute = Object.fromEntries(MAP_ATTRIBUTES.map((a, i) => [a, times[i]!]));
  log(
    `${String(order).padStart(5)}  ${String(size * size).padStart(10)}  ${baseMap.bytesPerCell(order).toFixed(1).padStart(10)}  ${['type', 'depth', 'family', 'disk-size'].map((a) => ms(byAttribute[a] ?? NaN).padStart(9)).join('  ')}  ${ms(withReads).padStart(10)}`,
  );
}
log(`slowest tile: ${ms(slowestTile)} (tiles are computed in the server's map worker, off the webview's frames)`);
// What a tile with a recording paid before the heat scale was kept per map: a scan of every object's reads.
const scan = best(runs, () => {
  let most = 0;
  for (let n = 0; n < model.count; n++) if (counts[n]! > most) most = counts[n]!;
  return most;
});
log(
  `(one scan of all ${model.count.toLocaleString('en-US')} objects' reads, what each overlay tile paid before the heat scale was computed once per map: ${ms(scan.ms)})`,
);
void MAX_MAP_ORDER;

// ---- In the real browser: the webview's frames and memory ---------------------------------------
/**
 * In the page: a tile as the extension delivers it. The deflated base64 crosses CDP as it crosses
 * the LSP link (JSON); the page inflates it as the host does (binaryTile) and posts a Uint8Array,
 * which VS Code's postMessage carries as binary.
 */
declare class DecompressionStream {
  constructor(format: string);
}
declare class Blob {
  constructor(parts: unknown[]);
  stream(): { pipeThrough(s: unknown): unknown };
}
declare class Response {
  constructor(body: unknown);
  arrayBuffer(): Promise<ArrayBuffer>;
}
declare function atob(text: string): string;
async function deliverBinaryTile({
  message,
  rgbaDeflated,
}: {
  message: { tile: Record<string, unknown> };
  rgbaDeflated: string;
}): Promise<void> {
  const deflated = Uint8Array.from(atob(rgbaDeflated), (c) => c.charCodeAt(0));
  const stream = new Blob([deflated]).stream().pipeThrough(new DecompressionStream('deflate-raw'));
  message.tile.rgba = new Uint8Array(await new Response(stream).arrayBuffer());
  window.postMessage(message, '*');
}

// Top-level await is not available (the bench is loaded as CommonJS, like the others): an async function.
async function inTheBrowser(): Promise<void> {
  const { tsImport } = await import('tsx/esm/api');
  const here = pathToFileURL(__filename).href;
  const { launchBrowser } = await import(
    pathToFileURL(path.join(projectRoot, 'scripts', 'vscode', 'code-server.mjs')).href
  );
  const { webviewHtml } = await tsImport('../src/extension/webview-html.ts', here);
  // The panel's page is its row in the table of panels (webview-panels.ts), as the webview test reads it.
  const { WEBVIEW_PANELS } = await tsImport('../src/extension/webview-panels.ts', here);
  const PACK_MAP_PAGE = WEBVIEW_PANELS.packMap;
  const protocol = await tsImport('../src/protocol/pack-map-protocol.ts', here);
  const bundle = path.join(projectRoot, 'dist', 'webview', 'pack-map.js');
  if (!fs.existsSync(bundle)) throw new Error(`${bundle} is missing: run npm run build first`);
  const ORIGIN = 'https://pack-map.bench.test';
  const NONCE = 'BenchNonce0123456789abcdefABCDEF';
  const legends: Record<string, { label: string; rgb: number[] }[]> = {};
  for (const a of MAP_ATTRIBUTES) legends[a] = baseMap.legend(a).map((e) => ({ label: e.label, rgb: [...e.colour] }));
  const info = {
    pack: files.pack,
    packName: path.basename(files.pack),
    objects: model.count,
    packBytes: model.packSize,
    dataStart: baseMap.dataStart,
    dataEnd: baseMap.dataEnd,
    maxDepth: baseMap.maxDepth,
    maxOrder,
    bytesPerCell: Array.from({ length: MAX_MAP_ORDER + 1 }, (_, o) => baseMap.bytesPerCell(o)),
    legends,
  };
  const html = webviewHtml(PACK_MAP_PAGE, {
    cspSource: ORIGIN,
    nonce: NONCE,
    scriptUri: `${ORIGIN}/dist/webview/pack-map.js`,
    styleUris: PACK_MAP_PAGE.styles.map((parts: string[]) => `${ORIGIN}/${parts.join('/')}`),
  }).replace(
    '<head>',
    `<head>\n<script nonce="${NONCE}">
let state = null;
window.acquireVsCodeApi = () => ({ postMessage: (m) => window.__host(JSON.parse(JSON.stringify(m))), getState: () => state, setState: (s) => { state = s; } });
</script>`,
  );
  const outDir = path.join(projectRoot, 'test-artifacts', 'bench');
  fs.mkdirSync(outDir, { recursive: true });
  const browser = await launchBrowser({ outDir });
  try {
    const context = await browser.newContext({ viewport: { width: 1200, height: 900 } });
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e: Error) => errors.push(e.message));
    let readyAt = 0;
    let tileMs = 0;
    let tileCount = 0;
    let tileChars = 0;
    let pushed = 0;
    let firstAsked = 0;
    let readyWall = 0;
    let lastAnswered = 0;
    const reply = (message: unknown): Promise<void> =>
      page.evaluate((m: unknown) => window.postMessage(m, '*'), message).catch(() => {});
    await page.exposeFunction(
      '__host',
      async (message: {
        type: string;
        messageId?: number;
        key?: string;
        firstView?: { sidePixels: number; attribute: (typeof MAP_ATTRIBUTES)[number] };
        wanted?: {
          attribute: (typeof MAP_ATTRIBUTES)[number];
          order: number;
          tileX: number;
          tileY: number;
          recording?: string;
        };
      }) => {
        switch (message.type) {
          case 'ready': {
            readyAt = performance.now();
            readyWall = Date.now();
            // As the panel host does (pack-map-panel.ts): the first view's tiles named in show, then sent unasked.
            const first = message.firstView ? protocol.firstViewTiles(message.firstView, info.maxOrder) : [];
            pushed = first.length;
            await reply({
              type: 'show',
              version: protocol.PACK_MAP_PROTOCOL_VERSION,
              repository: gitDir,
              panes: [{ role: 'pack', info }],
              recordings: [],
              ...(first.length > 0 ? { pushing: first.map(protocol.tileKey) } : {}),
              inReplyTo: message.messageId,
            });
            for (const wanted of first) await answerTile(protocol.tileKey(wanted), wanted, undefined);
            return undefined;
          }
          case 'tile':
            return answerTile(message.key!, message.wanted!, message.messageId);
          default:
            return undefined;
        }
      },
    );
    const answerTile = async (
      key: string,
      wanted: { attribute: (typeof MAP_ATTRIBUTES)[number]; order: number; tileX: number; tileY: number },
      messageId: number | undefined,
    ): Promise<undefined> => {
      const size = Math.min(TILE_CELLS, 2 ** wanted.order);
      const t = performance.now();
      if (firstAsked === 0) firstAsked = t;
      const rendered = baseMap.render(wanted.order, wanted.attribute, {
        x: wanted.tileX * size,
        y: wanted.tileY * size,
        width: size,
        height: size,
      });
      // As the map worker sends it (map-worker.ts): raw deflate, then base64 for the JSON link.
      const rgbaDeflated = deflateRawSync(rendered.rgba, { level: 1 }).toString('base64');
      tileMs += performance.now() - t;
      tileCount++;
      tileChars += rgbaDeflated.length;
      await page
        .evaluate(deliverBinaryTile, {
          message: {
            type: 'tile',
            key,
            ...(messageId !== undefined ? { inReplyTo: messageId } : {}),
            tile: { order: wanted.order, tileX: wanted.tileX, tileY: wanted.tileY, size, litCells: rendered.litCells },
          },
          rgbaDeflated,
        })
        .catch(() => {});
      lastAnswered = performance.now();
      return undefined;
    };
    await page.route(`${ORIGIN}/**`, (route: { request(): { url(): string }; fulfill(o: object): Promise<void> }) => {
      const url = new URL(route.request().url());
      if (url.pathname === '/index.html') return route.fulfill({ body: html, contentType: 'text/html' });
      const file = path.join(projectRoot, url.pathname);
      if (!file.startsWith(projectRoot) || !fs.existsSync(file)) return route.fulfill({ status: 404, body: '' });
      return route.fulfill({
        body: fs.readFileSync(file),
        contentType: file.endsWith('.css') ? 'text/css' : 'text/javascript',
      });
    });
    const settled = async (): Promise<void> => {
      await page.waitForFunction(
        () =>
          document.getElementById('scale')?.dataset.complete === 'true' &&
          document.getElementById('scale')!.dataset.moving === 'false',
        undefined,
        { timeout: 120_000 },
      );
    };
    // The page's own moment of a complete picture (the #scale element's data-complete), in wall-clock ms like readyWall.
    await page.addInitScript(() => {
      const w = globalThis as unknown as {
        __completeAt?: number;
        MutationObserver: new (cb: () => void) => { observe(target: unknown, options: object): void };
      };
      document.addEventListener('DOMContentLoaded', () => {
        new w.MutationObserver(() => {
          if (w.__completeAt === undefined && document.getElementById('scale')?.dataset.complete === 'true')
            w.__completeAt = Date.now();
        }).observe(document, { subtree: true, attributes: true, attributeFilter: ['data-complete'] });
      });
    });
    await page.goto(`${ORIGIN}/index.html`);
    await settled();
    const firstInPage = performance.now() - readyAt;
    const completeAt = Number(
      await page.evaluate(() => (globalThis as unknown as { __completeAt?: number }).__completeAt),
    );
    log('');
    log(
      `webview: first complete picture ${ms(firstInPage)} after the page asked for the pack (${tileCount} tiles, ${ms(tileMs)} of it computing them;` +
        ` ${pushed} of them pushed with show; first tile started at ${ms(firstAsked - readyAt)}, last delivered at ${ms(lastAnswered - readyAt)}; the page marked the picture complete at ${ms(completeAt - readyWall)};` +
        ` ${(tileChars / 1024).toFixed(0)} KiB of deflated base64 for ${((tileCount * TILE_CELLS * TILE_CELLS * 4 * 4) / 3 / 1024).toFixed(0)} KiB as plain base64)` +
        ` — bar ≤ ${BARS.firstPictureMs} ms: ${verdict(firstInPage <= BARS.firstPictureMs)}`,
    );

    const cdp = await context.newCDPSession(page);
    await cdp.send('Performance.enable');
    const heapMB = async (): Promise<number> => {
      await cdp.send('HeapProfiler.collectGarbage').catch(() => {});
      const { metrics } = await cdp.send('Performance.getMetrics');
      return (metrics.find((m: { name: string }) => m.name === 'JSHeapUsedSize')?.value ?? NaN) / 2 ** 20;
    };
    const box = await page.evaluate(() => {
      const r = document.getElementById('map-canvas')!.getBoundingClientRect();
      return { x: r.left + r.width / 2, y: r.top + r.height / 2 };
    });
    await page.mouse.move(box.x, box.y);
    const frame = (): Promise<number> =>
      page.evaluate(
        () =>
          new Promise<number>((r) =>
            requestAnimationFrame(() =>
              requestAnimationFrame(() => r(Number(document.getElementById('frame-time')!.dataset.lastMs))),
            ),
          ),
      );
    const orderNow = (): Promise<number> =>
      page.evaluate(() => Number(document.getElementById('scale')!.dataset.order));
    const perOrder = new Map<number, number[]>();
    let peakHeap = await heapMB();
    const record = async (): Promise<void> => {
      const f = await frame();
      const o = await orderNow();
      if (!perOrder.has(o)) perOrder.set(o, []);
      perOrder.get(o)!.push(f);
    };
    // Zoom in step by step to single objects, panning at each level (tiles arriving meanwhile), then back out.
    for (let step = 0; step < 40; step++) {
      const before = await orderNow();
      await page.mouse.wheel(0, -120);
      await record();
      await settled();
      await record();
      await page.mouse.down();
      for (let i = 0; i < 6; i++) {
        await page.mouse.move(box.x - i * 15, box.y - i * 8);
        await record();
      }
      await page.mouse.up();
      await page.mouse.move(box.x, box.y);
      if (step % 5 === 4) peakHeap = Math.max(peakHeap, await heapMB());
      const after = await orderNow();
      if (after === before && after >= maxOrder) break;
    }
    await settled();
    peakHeap = Math.max(peakHeap, await heapMB());
    for (let step = 0; step < 60; step++) {
      await page.mouse.wheel(0, 240);
      await record();
      if (
        (await orderNow()) === 0 ||
        (await page.evaluate(() => Number(document.getElementById('scale')!.dataset.order))) <=
          firstPicture.value.order - 2
      )
        break;
    }
    await settled();
    peakHeap = Math.max(peakHeap, await heapMB());
    const worstReported = Number(await page.evaluate(() => document.getElementById('frame-time')!.dataset.worstMs));
    await page.screenshot({ path: path.join(outDir, 'pack-map-bench.png') });
    log(`webview frames of zoom/pan per map order (performance.now() around each draw, as the page reports it):`);
    log('order  frames   median  slowest');
    let slowest = 0;
    for (const order of [...perOrder.keys()].sort((a, b) => a - b)) {
      const f = perOrder
        .get(order)!
        .filter(Number.isFinite)
        .sort((a, b) => a - b);
      if (f.length === 0) continue;
      slowest = Math.max(slowest, f.at(-1)!);
      log(
        `${String(order).padStart(5)}  ${String(f.length).padStart(6)}  ${ms(f[Math.floor(f.length / 2)]!).padStart(8)}  ${ms(f.at(-1)!).padStart(8)}`,
      );
    }
    slowest = Math.max(slowest, worstReported || 0);
    log(
      `slowest frame: ${ms(slowest)} — bar < ${BARS.frameMs} ms: ${verdict(slowest < BARS.frameMs)}; orders reached: ${[...perOrder.keys()].sort((a, b) => a - b).join(', ')} of 0–${maxOrder}`,
    );
    log(
      `webview JS heap (CDP JSHeapUsedSize after a GC), peak over the run: ${peakHeap.toFixed(1)} MB — bar < ${BARS.heapMB} MB: ${verdict(peakHeap < BARS.heapMB)}`,
    );
    if (errors.length > 0) log(`page errors: ${errors.join('; ')}`);
    await context.close();
  } finally {
    await browser.close().catch(() => {});
  }
}

if (!values['no-browser']) {
  inTheBrowser().catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
}
