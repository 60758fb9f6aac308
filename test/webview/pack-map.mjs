#!/usr/bin/env node
// Webview tests of the Pack Map in a real Chromium (as run.mjs does for the Cache Lab): the bundled
// dist/webview/pack-map.js in the page the host builds (webview-html.ts, the panel's PACK_MAP_PAGE,
// same CSP and nonce), with a stub acquireVsCodeApi. This file plays the host: it answers the page's
// requests with the real engine (src/core/map/pack-map.ts over the model of a pack git wrote), so
// the pixels the canvas shows can be checked against the map's own cells, and the objects the
// tooltip names against the model (the server test checks both against git).
//
//   node test/webview/pack-map.mjs
//
// Measures frame times of zoom and pan (performance.now() around each draw, read from the page)
// and prints them. Screenshots: test-artifacts/webview/pack-map-*.png.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { servePage } from './serve-page.mjs';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { deflateRawSync } from 'node:zlib';
import { tsImport } from 'tsx/esm/api';
import { launchBrowser } from '../../scripts/vscode/code-server.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const outDir = path.join(root, 'test-artifacts', 'webview');
const ORIGIN = 'https://pack-map.webview.test';
const NONCE = 'TestNonce0123456789abcdefABCDEF';

execFileSync(
  process.execPath,
  [path.join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '--noEmit', '-p', path.join(root, 'media')],
  { stdio: 'inherit' },
);
execFileSync(process.execPath, [path.join(root, 'scripts', 'build.mjs')], { stdio: 'inherit', cwd: root });
fs.mkdirSync(outDir, { recursive: true });

const { webviewHtml, contentSecurityPolicy } = await tsImport('../../src/extension/webview-html.ts', import.meta.url);
const { WEBVIEW_PANELS } = await tsImport('../../src/extension/webview-panels.ts', import.meta.url);
const PACK_MAP_PAGE = WEBVIEW_PANELS.packMap;
const protocol = await tsImport('../../src/protocol/pack-map-protocol.ts', import.meta.url);
const { PackMap } = await tsImport('../../src/core/map/pack-map.ts', import.meta.url);
const { MAP_ATTRIBUTES, MAX_MAP_ORDER, hilbertIndex } = await tsImport(
  '../../src/common/pack-map-geometry.ts',
  import.meta.url,
);
const { buildPackModel } = await tsImport('../../src/core/model/build-pack-model.ts', import.meta.url);
const { hashAlgorithmByName } = await tsImport('../../src/core/format/hash-algorithm.ts', import.meta.url);
const { familyArcs } = await tsImport('../../src/core/map/family-arcs.ts', import.meta.url);
const { seekPath } = await tsImport('../../src/core/map/seek-path.ts', import.meta.url);
// The host's view of each tile request and the server's dropping of superseded ones, as they run there.
const { PackMapTileViews } = await tsImport('../../src/extension/pack-map/tile-views.ts', import.meta.url);
const { TileViews } = await tsImport('../../src/server/tile-views.ts', import.meta.url);
const { CancellationTokenSource } = createRequire(import.meta.url)('vscode-languageserver/node');

const THEMES = {
  dark: {
    bodyClass: 'vscode-dark',
    vars: {
      '--vscode-foreground': '#cccccc',
      '--vscode-editor-background': '#1f1f1f',
      '--vscode-descriptionForeground': '#9d9d9d',
      '--vscode-charts-lines': 'rgba(204, 204, 204, 0.5)',
      '--vscode-button-secondaryBackground': '#313131',
      '--vscode-button-secondaryForeground': '#cccccc',
      '--vscode-dropdown-background': '#313131',
      '--vscode-dropdown-foreground': '#cccccc',
      '--vscode-font-family': 'system-ui, sans-serif',
      '--vscode-font-size': '13px',
      '--vscode-editor-font-family': 'monospace',
      '--vscode-editorHoverWidget-background': '#252526',
      '--vscode-editorHoverWidget-border': '#454545',
      '--vscode-focusBorder': '#0078d4',
    },
  },
  light: {
    bodyClass: 'vscode-light',
    vars: {
      '--vscode-foreground': '#3b3b3b',
      '--vscode-editor-background': '#ffffff',
      '--vscode-descriptionForeground': '#717171',
      '--vscode-charts-lines': 'rgba(97, 97, 97, 0.5)',
      '--vscode-button-secondaryBackground': '#e5e5e5',
      '--vscode-button-secondaryForeground': '#3b3b3b',
      '--vscode-dropdown-background': '#ffffff',
      '--vscode-dropdown-foreground': '#3b3b3b',
      '--vscode-font-family': 'system-ui, sans-serif',
      '--vscode-font-size': '13px',
      '--vscode-editor-font-family': 'monospace',
      '--vscode-editorHoverWidget-background': '#f8f8f8',
      '--vscode-editorHoverWidget-border': '#c8c8c8',
      '--vscode-focusBorder': '#005fb8',
    },
  },
};

// ---- A real pack: git writes it, the engine reads it ----------------------------------------
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'packscope-webview-map-'));
const repo = path.join(work, 'repo');
const git = (...args) =>
  execFileSync('git', args, {
    cwd: repo,
    env: {
      ...process.env,
      HOME: work,
      GIT_CONFIG_NOSYSTEM: '1',
      GIT_AUTHOR_NAME: 't',
      GIT_AUTHOR_EMAIL: 't@t',
      GIT_COMMITTER_NAME: 't',
      GIT_COMMITTER_EMAIL: 't@t',
    },
  });
fs.mkdirSync(repo);
git('init', '-q');
for (let c = 0; c < 40; c++) {
  for (let f = 0; f < 6; f++)
    fs.writeFileSync(
      path.join(repo, `file${f}.txt`),
      Array.from(
        { length: 60 + c * 3 },
        (_, i) => `line ${i} of file ${f} ${i % 7 === c % 7 ? `changed in ${c}` : ''}`,
      ).join('\n'),
    );
  git('add', '-A');
  git('commit', '-q', '-m', `commit ${c}`);
}
// Two large blobs of noise (incompressible, so about as large in the pack): the pack spans enough
// bytes (about 1.5 MB) for the map's deepest order to be several zoom steps below the whole view.
const noise = (bytes) =>
  Buffer.concat(
    Array.from({ length: bytes / 32 }, (_, i) => createHash('sha256').update(`noise ${bytes} ${i}`).digest()),
  );
fs.writeFileSync(path.join(repo, 'noise-a.bin'), noise(1 << 20));
fs.writeFileSync(path.join(repo, 'noise-b.bin'), noise(1 << 19));
git('add', '-A');
git('commit', '-q', '-m', 'noise');
git('repack', '-adfq', '--depth=20');
const packDir = path.join(repo, '.git', 'objects', 'pack');
const stem = path.join(
  packDir,
  fs
    .readdirSync(packDir)
    .find((f) => f.endsWith('.pack'))
    .replace(/\.pack$/, ''),
);
const files = { pack: `${stem}.pack`, idx: `${stem}.idx` };
const model = buildPackModel(files, { hash: hashAlgorithmByName('sha1') });
const baseMap = new PackMap(model);
// A recording's reads: git log's GIT_TRACE_PACK_ACCESS offsets, counted per object.
const traceFile = path.join(work, 'log.trace');
execFileSync('git', ['-c', 'core.deltaBaseCacheLimit=0', 'log', '--raw', '-n', '15'], {
  cwd: repo,
  env: { ...process.env, HOME: work, GIT_TRACE_PACK_ACCESS: traceFile },
});
const byOffset = new Map();
for (let n = 0; n < model.count; n++) byOffset.set(model.columns.offset[n], n);
const counts = new Uint32Array(model.count);
const traced = fs
  .readFileSync(traceFile, 'utf8')
  .trim()
  .split('\n')
  .map((line) => Number(/ (\d+)$/.exec(line)[1]));
for (const offset of traced) counts[byOffset.get(offset)]++;
const overlayMap = new PackMap(model, counts);
const RECORDING = { file: traceFile, label: 'git log --raw', description: 'terminal recording' };

// A second layout of the same objects, as a repack preview writes one (pack-objects into a directory
// outside the repository, short chains, a small window): the "after" pane of a before/after panel.
// The recording's reads are the same objects, found by id where this layout put them (as the
// server's by-object-id.ts maps a recording onto a preview's pack).
const afterDir = path.join(work, 'after');
fs.mkdirSync(afterDir);
const afterHash = execFileSync(
  'sh',
  ['-c', `git rev-list --objects --all | git pack-objects -q --depth=3 --window=3 '${afterDir}/pack'`],
  { cwd: repo, encoding: 'utf8', env: { ...process.env, HOME: work, GIT_CONFIG_NOSYSTEM: '1' } },
).trim();
const afterFiles = {
  pack: path.join(afterDir, `pack-${afterHash}.pack`),
  idx: path.join(afterDir, `pack-${afterHash}.idx`),
};
const afterModel = buildPackModel(afterFiles, { hash: hashAlgorithmByName('sha1') });
const afterBaseMap = new PackMap(afterModel);
const afterTraced = traced.map(
  (offset) => afterModel.columns.offset[afterModel.findHex(model.oidHex(byOffset.get(offset)))],
);
const afterByOffset = new Map();
for (let n = 0; n < afterModel.count; n++) afterByOffset.set(afterModel.columns.offset[n], n);
const afterCounts = new Uint32Array(afterModel.count);
for (const offset of afterTraced) afterCounts[afterByOffset.get(offset)]++;
const afterOverlayMap = new PackMap(afterModel, afterCounts);
/** Each pane's pack as the engine reads it: pane 0 today's, pane 1 the preview's. */
const PANES = [
  { files, model, baseMap, overlayMap, byOffset, traced },
  {
    files: afterFiles,
    model: afterModel,
    baseMap: afterBaseMap,
    overlayMap: afterOverlayMap,
    byOffset: afterByOffset,
    traced: afterTraced,
  },
];

function infoOf({ files, model, baseMap } = PANES[0]) {
  const legends = {};
  for (const a of MAP_ATTRIBUTES) legends[a] = baseMap.legend(a).map((e) => ({ label: e.label, rgb: [...e.colour] }));
  return {
    pack: files.pack,
    packName: path.basename(files.pack),
    objects: model.count,
    packBytes: model.packSize,
    dataStart: baseMap.dataStart,
    dataEnd: baseMap.dataEnd,
    maxDepth: baseMap.maxDepth,
    largestOnDisk: baseMap.largestOnDisk,
    maxOrder: baseMap.orderFor(1),
    bytesPerCell: Array.from({ length: MAX_MAP_ORDER + 1 }, (_, o) => baseMap.bytesPerCell(o)),
    legends,
  };
}
const info = infoOf();
const afterInfo = infoOf(PANES[1]);

function objectJson(n, { model, files } = PANES[0]) {
  const c = model.columns;
  const names = { 1: 'commit', 2: 'tree', 3: 'blob', 4: 'tag', 6: 'ofs-delta', 7: 'ref-delta' };
  return {
    oid: model.oidHex(n),
    type: names[c.type[n]],
    inPackType: names[c.inPackType[n]],
    size: c.resultSize.get(n),
    diskSize: c.diskSize.get(n),
    offset: c.offset[n],
    depth: c.depth[n],
    children: 0,
    familySize: 1,
    repository: '/repo',
    repositoryName: 'repo',
    pack: files.pack,
    packName: path.basename(files.pack),
    chain: [],
    root: model.oidHex(n),
  };
}

function tileReply(wanted) {
  const size = Math.min(256, 2 ** wanted.order);
  const pane = PANES[wanted.pane];
  const map = wanted.recording ? pane.overlayMap : pane.baseMap;
  const rendered = map.render(wanted.order, wanted.attribute, {
    x: wanted.tileX * size,
    y: wanted.tileY * size,
    width: size,
    height: size,
  });
  return {
    order: wanted.order,
    tileX: wanted.tileX,
    tileY: wanted.tileY,
    size,
    rgbaDeflated: deflateRawSync(rendered.rgba, { level: 1 }).toString('base64'),
    litCells: rendered.litCells,
    ...(wanted.recording ? { recordingObjects: map.readObjects, recordingReads: pane.traced.length } : {}),
  };
}

/** The recording's reads of a pane's pack as a seek path (the server's packscope/packMapSeeks). */
function seekPathOf({ files, model, byOffset, traced }, cache = { cacheMiB: 256, readaheadKiB: 128 }) {
  return seekPath(
    {
      pack: files.pack,
      offsets: Float64Array.from(traced),
      entryBytes: Float64Array.from(traced, (o) => model.columns.diskSize.get(byOffset.get(o))),
    },
    cache,
  );
}

// ---- The page and its host -----------------------------------------------------------------
let browser;
let context;

before(async () => {
  browser = await launchBrowser({ outDir: path.join(root, 'test-artifacts', 'webview-browser') });
  context = await browser.newContext({ viewport: { width: 1200, height: 800 } });
});

after(async () => {
  await context?.close().catch(() => {});
  await browser?.close().catch(() => {});
  fs.rmSync(work, { recursive: true, force: true });
});

/** In the page: inflates a tile's pixels into a Uint8Array and posts it, as the host (binaryTile) and VS Code's postMessage do. */
async function deliverBinaryTile({ message, rgbaDeflated }) {
  const deflated = Uint8Array.from(atob(rgbaDeflated), (c) => c.charCodeAt(0));
  const stream = new Blob([deflated]).stream().pipeThrough(new DecompressionStream('deflate-raw'));
  message.tile.rgba = new Uint8Array(await new Response(stream).arrayBuffer());
  window.postMessage(message, '*');
}

/**
 * Opens the page; the returned host answers its requests (tiles may be held back with `hold`).
 * `serve`: tiles are answered as the panel host and the server answer them (pack-map-panel.ts,
 * handlers/pack-map.ts): each request names its pane's view (the host's PackMapTileViews), waits
 * in a queue drawn one tile every `host.serveMs` (Infinity: none), and is dropped, answered `tileFailed` cancelled,
 * when `cancelTiles` names it, when the page asks for the same key again, or when a newer view
 * of its pane supersedes it (the server's TileViews). `host.served` lists what was drawn and
 * dropped, in order.
 */
async function openMap({ theme = 'dark', initialState = null, push = false, compare = false, serve = false } = {}) {
  // Today's pack alone, or today's and the preview's (the Repack Preview's before/after).
  const shown = compare
    ? [
        { role: 'today', info },
        { role: 'preview', info: afterInfo },
      ]
    : [{ role: 'pack', info }];
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text());
  });
  const html = webviewHtml(PACK_MAP_PAGE, {
    cspSource: ORIGIN,
    nonce: NONCE,
    scriptUri: `${ORIGIN}/dist/webview/pack-map.js`,
    styleUris: PACK_MAP_PAGE.styles.map((parts) => `${ORIGIN}/${parts.join('/')}`),
  }).replace(
    '<head>',
    `<head>\n<script nonce="${NONCE}">
window.__states = []; window.__cspViolations = [];
document.addEventListener('securitypolicyviolation', (e) => window.__cspViolations.push(e.violatedDirective + ' ' + e.blockedURI));
let state = ${JSON.stringify(initialState)};
window.acquireVsCodeApi = () => ({
  postMessage: (m) => window.__host(JSON.parse(JSON.stringify(m))),
  getState: () => state,
  setState: (s) => { state = JSON.parse(JSON.stringify(s)); window.__states.push(state); },
});
</script>`,
  );
  const hostState = { posted: [], held: [], hold: false, tileRequests: [], cancelled: [] };
  const tileViews = new PackMapTileViews();
  const serverViews = new TileViews();
  Object.assign(hostState, { serveMs: 0, queue: [], served: [], byKey: new Map() });
  /** A tile request as the host sends it to the server; `inReplyTo` undefined for a pushed tile. */
  const enqueue = (key, wanted, generation, inReplyTo) => {
    hostState.byKey.get(key)?.cancel();
    const source = new CancellationTokenSource();
    hostState.byKey.set(key, source);
    const view = tileViews.view(wanted.pane, generation);
    const entered = serverViews.enter(view.id, view.generation, source.token);
    hostState.queue.push({ key, wanted, view, entered, source, inReplyTo });
    if (!draining) void drain();
  };
  let draining = false;
  const drain = async () => {
    draining = true;
    while (hostState.queue.length > 0) {
      const next = hostState.queue[0];
      // Drawn `serveMs` after it reached the head (Infinity holds it), dropped as soon as it is cancelled.
      const reached = Date.now();
      while (!next.entered.token.isCancellationRequested && Date.now() - reached < hostState.serveMs)
        await new Promise((r) => setTimeout(r, 5));
      hostState.queue.shift();
      const dropped = next.entered.token.isCancellationRequested;
      next.entered.done();
      if (hostState.byKey.get(next.key) === next.source) hostState.byKey.delete(next.key);
      hostState.served.push({ key: next.key, view: next.view, attribute: next.wanted.attribute, dropped });
      const answered = { type: 'tileFailed', key: next.key, message: 'cancelled', cancelled: true };
      if (next.inReplyTo !== undefined) answered.inReplyTo = next.inReplyTo;
      if (dropped) await reply(answered);
      else await hostState.answer({ key: next.key, wanted: next.wanted, messageId: next.inReplyTo });
    }
    draining = false;
  };
  const reply = (message) => page.evaluate((m) => window.postMessage(m, '*'), message).catch(() => {});
  // A tile goes as the extension delivers it: the server's deflated base64 (the JSON leg, here CDP's),
  // inflated by the host, posted to the page as a Uint8Array (VS Code's postMessage keeps it binary).
  hostState.answer = (message) => {
    const { rgbaDeflated, ...tile } = tileReply(message.wanted);
    const answered = { type: 'tile', key: message.key, tile };
    if (message.messageId !== undefined) answered.inReplyTo = message.messageId;
    return page.evaluate(deliverBinaryTile, { message: answered, rgbaDeflated }).catch(() => {});
  };
  hostState.release = async () => {
    for (const m of hostState.held.splice(0)) await hostState.answer(m);
  };
  await page.exposeFunction('__host', async (message) => {
    hostState.posted.push(message);
    switch (message.type) {
      case 'ready':
        tileViews.pageLoaded();
        if (push && message.firstView) {
          // As the panel host does (pack-map-panel.ts): show names the first view's tiles, then they come unasked.
          const first = shown.flatMap((pane, i) => protocol.firstViewTiles(message.firstView, pane.info.maxOrder, i));
          hostState.pushed = first.map(protocol.tileKey);
          await reply({
            type: 'show',
            version: protocol.PACK_MAP_PROTOCOL_VERSION,
            repository: '/repo',
            panes: shown,
            recordings: [RECORDING],
            pushing: hostState.pushed,
            inReplyTo: message.messageId,
          });
          for (const wanted of first)
            if (serve) enqueue(protocol.tileKey(wanted), wanted, 0);
            else await hostState.answer({ key: protocol.tileKey(wanted), wanted });
          return undefined;
        }
        return reply({
          type: 'show',
          version: protocol.PACK_MAP_PROTOCOL_VERSION,
          repository: '/repo',
          panes: shown,
          recordings: [RECORDING],
          inReplyTo: message.messageId,
        });
      case 'tile':
        assert.ok(protocol.isWebviewToHost(message), JSON.stringify(message));
        hostState.tileRequests.push(message);
        if (serve) return enqueue(message.key, message.wanted, message.generation, message.messageId);
        if (hostState.hold) return void hostState.held.push(message);
        return hostState.answer(message);
      case 'cancelTiles':
        hostState.cancelled.push(...message.keys);
        for (const key of message.keys) hostState.byKey.get(key)?.cancel();
        return undefined;
      case 'objectAt': {
        const n = PANES[message.pane].baseMap.objectAtCell(message.order, message.x, message.y);
        return reply({
          type: 'objectAt',
          object: n < 0 ? null : objectJson(n, PANES[message.pane]),
          inReplyTo: message.messageId,
        });
      }
      case 'family': {
        // As the server answers packscope/packMapFamily (test/server/pack-map-overlays.test.ts checks that against git).
        const { model } = PANES[message.pane];
        const f = familyArcs(model, model.findHex(message.oid));
        return reply({
          type: 'family',
          family: {
            root: model.oidHex(f.root),
            members: f.members,
            memberOffsets: f.memberOffsets,
            arcs: f.arcs,
            externalBases: f.externalBases,
            truncated: f.truncated,
          },
          inReplyTo: message.messageId,
        });
      }
      case 'seeks': {
        const cache = { cacheMiB: 256, readaheadKiB: 128 };
        const p = seekPathOf(PANES[message.pane], cache);
        return reply({
          type: 'seeks',
          seeks: {
            reads: p.reads,
            stride: p.stride,
            offsets: p.offsets,
            faults: p.faults,
            seeks: p.seeks,
            backwardSeeks: p.backwardSeeks,
            locality: p.locality,
            pageCache: cache,
          },
          inReplyTo: message.messageId,
        });
      }
      default:
        return undefined;
    }
  });
  await servePage(page, { origin: ORIGIN, root, html });
  await page.addInitScript(({ bodyClass, vars }) => {
    document.addEventListener('DOMContentLoaded', () => {
      for (const [name, value] of Object.entries(vars)) document.documentElement.style.setProperty(name, value);
      document.body.className = bodyClass;
    });
  }, THEMES[theme]);
  await page.goto(`${ORIGIN}/index.html`);
  return { page, errors, host: hostState };
}

/** An element id of pane `pane` (the first pane's ids are a single map's; the second's end in -1). */
const paneId = (base, pane = 0) => (pane === 0 ? base : `${base}-${pane}`);

/** Polls `condition` (of this process: the host's queue) until it holds, or fails naming `what`. */
async function until(condition, what, ms = 15_000) {
  const end = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > end) assert.fail(`waited ${ms} ms for: ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/**
 * Until `count()` has not changed for `quietMs`: the page's messages cross to the host
 * asynchronously, so the requests one draw sent can still be arriving after the first is seen.
 */
async function untilSettled(count, what, quietMs = 250, ms = 15_000) {
  const end = Date.now() + ms;
  let last = count();
  let since = Date.now();
  while (Date.now() - since < quietMs) {
    if (Date.now() > end) assert.fail(`waited ${ms} ms for: ${what}`);
    await new Promise((r) => setTimeout(r, 10));
    if (count() !== last) [last, since] = [count(), Date.now()];
  }
}

/** Tile requests of a serving host that wait in its queue and are not dropped. */
const waitingTiles = (host) => host.queue.filter((q) => !q.entered.token.isCancellationRequested);

/** Keys of the tiles of pane 0 the page shows at `order` for camera `cam` (media/pack-map/tiles.ts visibleTiles). */
function visibleTileKeys(box, cam, order, attribute) {
  const s = Math.min(box.width, box.height) * 2 ** cam.zoom;
  const unit = Math.min(1, 256 / 2 ** order);
  const last = Math.max(1, 2 ** order / 256) - 1;
  const at = (px, center, side) => center + (px - side / 2) / s;
  const range = (from, to) => [Math.max(0, Math.floor(from / unit)), Math.min(last, Math.floor(to / unit))];
  const [x0, x1] = range(at(0, cam.centerX, box.width), at(box.width, cam.centerX, box.width));
  const [y0, y1] = range(at(0, cam.centerY, box.height), at(box.height, cam.centerY, box.height));
  const keys = [];
  for (let tileY = y0; tileY <= y1; tileY++)
    for (let tileX = x0; tileX <= x1; tileX++) keys.push(protocol.tileKey({ pane: 0, attribute, order, tileX, tileY }));
  return keys;
}

/** Waits until the view (every pane of it) has every tile of its order drawn. */
async function settled(page) {
  const done = () =>
    [...document.querySelectorAll('.scale')].every(
      (s) => s.dataset.complete === 'true' && s.dataset.moving === 'false',
    ) && document.getElementById('scale')?.dataset.complete === 'true';
  await page.waitForFunction(done);
  // Two frames: an animation's last step, then the draw it asked for.
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
  await page.waitForFunction(done);
}

const camera = async (page) => page.evaluate(() => window.__states.at(-1).camera);

/** The canvas's geometry as the page draws it: CSS size and where it sits on the page. */
async function canvasBox(page, pane = 0) {
  return page.evaluate(
    (id) => {
      const c = document.getElementById(id);
      const r = c.getBoundingClientRect();
      return { left: r.left, top: r.top, width: c.clientWidth, height: c.clientHeight, dpr: window.devicePixelRatio };
    },
    paneId('map-canvas', pane),
  );
}

/** The colour the canvas shows at CSS point (x, y) of the canvas. */
async function pixelAt(page, x, y, pane = 0) {
  return page.evaluate(
    ([x, y, id]) => {
      const c = document.getElementById(id);
      const d = window.devicePixelRatio;
      return [
        ...c
          .getContext('2d')
          .getImageData(Math.floor(x * d), Math.floor(y * d), 1, 1)
          .data.slice(0, 3),
      ];
    },
    [x, y, paneId('map-canvas', pane)],
  );
}

/** The cell under CSS point (x, y) of the canvas for `cam`, as the page computes it (the map is the unit square). */
function cellUnder(box, cam, order, x, y) {
  const s = Math.min(box.width, box.height) * 2 ** cam.zoom;
  const u = cam.centerX + (x - box.width / 2) / s;
  const v = cam.centerY + (y - box.height / 2) / s;
  return { u, v, x: Math.floor(u * 2 ** order), y: Math.floor(v * 2 ** order), cellPx: s / 2 ** order };
}

function colourOfCell(order, attribute, x, y, map = baseMap) {
  const rendered = map.render(order, attribute, { x, y, width: 1, height: 1 });
  return [...rendered.rgba.slice(0, 3)];
}

/** Screen points at the middle of cells (never on an edge between two), checked against the engine's colour. */
async function checkPixels(page, attribute, map = baseMap, pane = 0, outlined = []) {
  const box = await canvasBox(page, pane);
  const cam = await camera(page);
  const order = Number(await page.evaluate((id) => document.getElementById(id).dataset.order, paneId('scale', pane)));
  let checked = 0;
  for (let i = 0; i < 200 && checked < 40; i++) {
    const x = 5 + ((i * 97) % (box.width - 10));
    const y = 5 + ((i * 61) % (box.height - 10));
    const cell = cellUnder(box, cam, order, x, y);
    if (cell.u < 0 || cell.v < 0 || cell.u >= 1 || cell.v >= 1) continue;
    const fx = cell.u * 2 ** order - cell.x;
    const fy = cell.v * 2 ** order - cell.y;
    const margin = 1.5 / cell.cellPx;
    if (cell.cellPx < 3 || fx < margin || fx > 1 - margin || fy < margin || fy > 1 - margin) continue;
    // A hovered cell's outline (2 px, over the cells around it too when cells are small) is not the map's.
    if (outlined.some((o) => o.order === order && Math.abs(o.x - cell.x) <= 1 && Math.abs(o.y - cell.y) <= 1)) continue;
    assert.deepEqual(
      await pixelAt(page, x, y, pane),
      colourOfCell(order, attribute, cell.x, cell.y, map),
      `pane ${pane}: canvas (${x}, ${y}) is cell (${cell.x}, ${cell.y}) of order ${order}`,
    );
    checked++;
  }
  return { checked, order };
}

describe('Pack Map webview', () => {
  it("takes the first view's tiles the host pushes with show, asks for none of them, and draws the engine's cells", async () => {
    const { page, errors, host } = await openMap({ push: true });
    await settled(page);
    assert.ok(host.pushed.length > 0);
    const order = Number(await page.evaluate(() => document.getElementById('scale').dataset.order));
    assert.ok(
      host.pushed.every((key) => key.split('|')[2] === String(order) && key.split('|')[5] === '0'),
      `pushed ${host.pushed.join(', ')}; the page draws order ${order}`,
    );
    assert.deepEqual(
      host.tileRequests.map((m) => m.key).filter((key) => host.pushed.includes(key)),
      [],
      'no pushed tile asked for again',
    );
    assert.deepEqual(host.cancelled, []);
    // The whole pack at zoom 0 is every tile of that order: the ones pushed.
    assert.equal(host.pushed.length, Math.max(1, 2 ** order / 256) ** 2);
    for (let i = 0; i < 5; i++) await page.locator('#zoom-in').click();
    await settled(page);
    const { checked } = await checkPixels(page, 'type');
    assert.ok(checked > 10, `checked ${checked} pixels`);
    assert.deepEqual(errors, []);
    await page.close();
  });

  it("asks for the pack under the CSP, draws the engine's cells, shows the legend the host sent", async () => {
    const { page, errors, host } = await openMap();
    await settled(page);
    const { firstView, ...ready } = host.posted[0];
    assert.deepEqual(ready, { type: 'ready', version: protocol.PACK_MAP_PROTOCOL_VERSION, messageId: 1 });
    assert.ok(protocol.isWebviewToHost(host.posted[0]));
    // The view it announced (its size before the side panel filled in) gives the order it draws: the tiles a host would push.
    assert.equal(firstView.attribute, 'type');
    const drawn = Number(await page.evaluate(() => document.getElementById('scale').dataset.order));
    assert.equal(
      protocol.firstViewTiles(firstView, info.maxOrder)[0].order,
      drawn,
      `announced ${firstView.sidePixels} device pixels`,
    );
    assert.equal(
      await page.locator('meta[http-equiv="Content-Security-Policy"]').getAttribute('content'),
      contentSecurityPolicy({ cspSource: ORIGIN, nonce: NONCE }),
    );
    const legend = await page.locator('#legend li').allTextContents();
    assert.deepEqual(
      legend,
      info.legends.type.map((e) => e.label),
    );
    const swatches = await page.evaluate(() =>
      [...document.querySelectorAll('#legend .swatch')].map((s) => getComputedStyle(s).backgroundColor),
    );
    assert.deepEqual(
      swatches,
      info.legends.type.map((e) => `rgb(${e.rgb.join(', ')})`),
    );
    // At zoom 0 with cells under 3 px nothing can be checked between edges: zoom until cells are large.
    for (let i = 0; i < 5; i++) await page.locator('#zoom-in').click();
    await settled(page);
    const { checked, order } = await checkPixels(page, 'type');
    assert.ok(checked >= 20, `checked ${checked} pixels at order ${order}`);
    await page.screenshot({ path: path.join(outDir, 'pack-map-dark.png') });
    assert.deepEqual(await page.evaluate(() => window.__cspViolations), []);
    assert.deepEqual(errors, []);
    await page.close();
  });

  it('zooms by keys, buttons and wheel (the order follows, the point under the wheel stays), pans by drag and arrows', async () => {
    const { page, host } = await openMap();
    await settled(page);
    const box = await canvasBox(page);
    const order0 = Number(await page.evaluate(() => document.getElementById('scale').dataset.order));
    assert.equal(order0, Math.min(info.maxOrder, Math.floor(Math.log2(Math.min(box.width, box.height) * box.dpr))));
    await page.locator('#map-canvas').focus();
    await page.keyboard.press('+');
    await settled(page);
    assert.equal((await camera(page)).zoom, 1);
    assert.equal(
      Number(await page.evaluate(() => document.getElementById('scale').dataset.order)),
      Math.min(info.maxOrder, order0 + 1),
    );
    assert.ok(
      host.tileRequests.some((m) => m.wanted.order === order0 + 1),
      `tiles of order ${order0 + 1} were asked for (max ${info.maxOrder}; asked: ${[...new Set(host.tileRequests.map((m) => m.wanted.order))]})`,
    );
    // The wheel keeps the map point under the pointer where it is.
    const at = { x: box.width * 0.3, y: box.height * 0.6 };
    const before = await camera(page);
    const unitBefore = cellUnder(box, before, 0, at.x, at.y);
    await page.mouse.move(box.left + at.x, box.top + at.y);
    await page.mouse.wheel(0, -250);
    await page.waitForFunction((z) => window.__states.at(-1).camera.zoom > z, before.zoom);
    const afterWheel = await camera(page);
    const unitAfter = cellUnder(box, afterWheel, 0, at.x, at.y);
    assert.ok(Math.abs(afterWheel.zoom - (before.zoom + 0.5)) < 1e-9, `zoom ${afterWheel.zoom}`);
    // Within a pixel: the pointer's position reaches the page rounded to whole CSS pixels.
    const pixel = 1 / (Math.min(box.width, box.height) * 2 ** before.zoom);
    assert.ok(
      Math.abs(unitAfter.u - unitBefore.u) < pixel && Math.abs(unitAfter.v - unitBefore.v) < pixel,
      `the point under the wheel stays: ${JSON.stringify([unitBefore, unitAfter, before, afterWheel, box])}`,
    );
    // A drag moves the map with the pointer.
    const s = Math.min(box.width, box.height) * 2 ** afterWheel.zoom;
    await page.mouse.move(box.left + 400, box.top + 300);
    await page.mouse.down();
    await page.mouse.move(box.left + 450, box.top + 320, { steps: 5 });
    await page.mouse.move(box.left + 500, box.top + 340, { steps: 5 });
    await page.mouse.up();
    const dragged = await camera(page);
    assert.ok(Math.abs(dragged.centerX - (afterWheel.centerX - 100 / s)) < 1e-9, `centre x ${dragged.centerX}`);
    assert.ok(Math.abs(dragged.centerY - (afterWheel.centerY - 40 / s)) < 1e-9, `centre y ${dragged.centerY}`);
    await page.locator('#map-canvas').focus();
    await page.keyboard.press('ArrowRight');
    await page.waitForFunction(
      (x) => Math.abs(window.__states.at(-1).camera.centerX - x) < 1e-9,
      dragged.centerX + Math.min(box.width, box.height) / 8 / s,
    );
    await page.keyboard.press('-');
    await page.keyboard.press('0');
    await page.waitForFunction(
      () => window.__states.at(-1).camera.zoom === 0 && window.__states.at(-1).camera.centerX === 0.5,
    );
    await settled(page);
    await page.close();
  });

  it('hovering a cell shows the object the host names for it; a click opens it, shift-click reveals it', async () => {
    const { page, host } = await openMap();
    await settled(page);
    for (let i = 0; i < 4; i++) await page.locator('#zoom-in').click();
    await settled(page);
    const box = await canvasBox(page);
    const cam = await camera(page);
    const order = Number(await page.evaluate(() => document.getElementById('scale').dataset.order));
    const point = { x: box.width / 2 + 37, y: box.height / 2 - 21 };
    await page.mouse.move(box.left + point.x, box.top + point.y);
    await page.locator('#map-tooltip:not([hidden])').waitFor();
    const cell = cellUnder(box, cam, order, point.x, point.y);
    const asked = host.posted.filter((m) => m.type === 'objectAt').at(-1);
    assert.deepEqual([asked.order, asked.x, asked.y], [order, cell.x, cell.y]);
    const n = baseMap.objectAtCell(order, cell.x, cell.y);
    const tip = await page.locator('#map-tooltip').textContent();
    assert.ok(tip.includes(model.oidHex(n)), tip);
    assert.match(tip, new RegExp(`offset ${model.columns.offset[n].toLocaleString('en-US')}`));
    await page.screenshot({ path: path.join(outDir, 'pack-map-hover.png') });
    await page.mouse.click(box.left + point.x, box.top + point.y);
    await page.waitForFunction(() => true);
    await page.keyboard.down('Shift');
    await page.mouse.click(box.left + point.x, box.top + point.y);
    await page.keyboard.up('Shift');
    await new Promise((r) => setTimeout(r, 200));
    const opened = host.posted.filter((m) => m.type === 'openObject' || m.type === 'revealObject');
    assert.deepEqual(
      opened.map((m) => [m.type, m.oid]),
      [
        ['openObject', model.oidHex(n)],
        ['revealObject', model.oidHex(n)],
      ],
    );
    await page.close();
  });

  it('a view that moves on cancels the tiles it no longer needs; coarser tiles stand in meanwhile', async () => {
    const { page, host } = await openMap();
    await settled(page);
    host.hold = true;
    await page.locator('#map-canvas').focus();
    await page.keyboard.press('+');
    await page.waitForFunction(() => window.__states.at(-1).camera.zoom === 1);
    await new Promise((r) => setTimeout(r, 300));
    const heldKeys = host.held.map((m) => m.key);
    assert.ok(heldKeys.length > 0, 'tiles of the finer order were asked for');
    // Meanwhile the order-below tiles are drawn scaled: the canvas is not empty where the map is.
    const box = await canvasBox(page);
    const bg = [0x1f, 0x1f, 0x1f];
    assert.notDeepEqual(await pixelAt(page, box.width / 2, box.height / 2), bg, 'a coarser tile stands in');
    await page.keyboard.press('+');
    await page.keyboard.press('+');
    await page.waitForFunction(() => window.__states.at(-1).camera.zoom === 3);
    await new Promise((r) => setTimeout(r, 300));
    const cancelled = new Set(host.cancelled);
    const finalOrder = Number(await page.evaluate(() => document.getElementById('scale').dataset.order));
    const left = host.held.filter((m) => heldKeys.includes(m.key) && m.wanted.order < finalOrder);
    assert.ok(left.length > 0);
    assert.deepEqual(
      left.filter((m) => !cancelled.has(m.key)).map((m) => m.key),
      [],
      'every tile of the orders left behind was cancelled',
    );
    host.hold = false;
    await host.release();
    await settled(page);
    await page.close();
  });

  it('a colouring changed while tiles wait supersedes them: none of the old colouring is drawn after, every tile in view arrives, also after changing back', async () => {
    const { page, host, errors } = await openMap({ serve: true, push: true });
    await settled(page);
    // No tile drawn: the view's tiles wait in the queue while the colouring changes.
    host.serveMs = Infinity;
    for (let i = 0; i < 5; i++) await page.locator('#zoom-in').click();
    await page.waitForFunction(() => window.__states.at(-1).camera.zoom === 5);
    await until(() => waitingTiles(host).length >= 3, 'tiles of the zoomed view wait');
    const typeGeneration = Math.max(...host.tileRequests.map((m) => m.generation));
    await page.locator('#attribute').selectOption('depth');
    await until(() => waitingTiles(host).some((q) => q.wanted.attribute === 'depth'), 'depth tiles wait');
    // Every depth request the view sent has arrived (a late one counted as "asked again" after the
    // switch back made this test fail now and then); one sent after the switch would still be seen.
    await untilSettled(() => host.tileRequests.length, "the depth view's requests to arrive");
    const depthRequests = host.tileRequests.filter((m) => m.wanted.attribute === 'depth');
    assert.ok(
      depthRequests.every((m) => m.generation > typeGeneration),
      `another colouring is a newer view: ${depthRequests.map((m) => m.generation)} after ${typeGeneration}`,
    );
    // Back while depth tiles wait: the type tiles dropped meanwhile are asked for again, under a newer view still.
    const servedAtBack = host.served.length;
    const requestsAtBack = host.tileRequests.length;
    await page.locator('#attribute').selectOption('type');
    await until(() => host.tileRequests.length > requestsAtBack, 'the first colouring asked for again');
    host.serveMs = 20;
    await settled(page);
    const depthGeneration = Math.max(...depthRequests.map((m) => m.generation));
    const again = host.tileRequests.slice(requestsAtBack);
    assert.ok(
      again.length > 0 && again.every((m) => m.wanted.attribute === 'type' && m.generation > depthGeneration),
      `asked again: ${again.map((m) => `${m.key} (${m.generation})`).join(', ')}; depth up to ${depthGeneration}`,
    );
    const afterBack = host.served.slice(servedAtBack);
    assert.ok(
      afterBack.some((t) => t.attribute === 'depth' && t.dropped),
      'the depth tiles still waiting were dropped',
    );
    assert.deepEqual(
      afterBack.filter((t) => t.attribute === 'depth' && !t.dropped).map((t) => t.key),
      [],
      'no tile of the colouring left was drawn after it was left',
    );
    // Every tile of the view came (settled), in the colouring shown: the canvas is the engine's cells.
    const { checked } = await checkPixels(page, 'type');
    assert.ok(checked >= 20, `checked ${checked} pixels`);
    assert.deepEqual(errors, []);
    await page.close();
  });

  it('a small pan keeps the view: the tiles still in view that wait are neither cancelled nor dropped', async () => {
    const { page, host, errors } = await openMap({ serve: true });
    await settled(page);
    // No tile drawn while the view pans: the tiles it asked for wait.
    host.serveMs = Infinity;
    for (let i = 0; i < 5; i++) await page.locator('#zoom-in').click();
    await page.waitForFunction(() => window.__states.at(-1).camera.zoom === 5);
    await page.waitForFunction(() => document.getElementById('scale').dataset.moving === 'false');
    await until(() => waitingTiles(host).length >= 4, 'tiles of the zoomed view wait');
    const generation = host.tileRequests.at(-1).generation;
    // The requests themselves, not only their keys: a key asked for, cancelled and asked again while
    // the zoom animated is in `host.cancelled` from before the pan (that made this test fail now and then).
    const waitingBefore = waitingTiles(host);
    const cancelledBefore = host.cancelled.length;
    const requestsBefore = host.tileRequests.length;
    const box = await canvasBox(page);
    await page.mouse.move(box.left + 300, box.top + 300);
    await page.mouse.down();
    await page.mouse.move(box.left + 280, box.top + 290, { steps: 4 });
    await page.mouse.up();
    await new Promise((r) => setTimeout(r, 300));
    const order = Number(await page.evaluate(() => document.getElementById('scale').dataset.order));
    const inView = new Set(visibleTileKeys(box, await camera(page), order, 'type'));
    const stillInView = waitingBefore.filter((q) => inView.has(q.key));
    assert.ok(stillInView.length > 0, 'a tile that waited is still in view');
    host.serveMs = 0;
    await settled(page);
    // Given up: cancelled by the page since the pan (cancelTiles), or dropped by the host (its request's token cancelled).
    const cancelledSince = new Set(host.cancelled.slice(cancelledBefore));
    assert.deepEqual(
      stillInView.filter((q) => cancelledSince.has(q.key) || q.entered.token.isCancellationRequested).map((q) => q.key),
      [],
      `no tile still in view was given up (asked since the pan: ${host.tileRequests
        .slice(requestsBefore)
        .map((m) => `${m.key}@${m.generation}`)
        .join(' ')}; generation ${generation} before it)`,
    );
    assert.ok(
      host.tileRequests.every((m) => m.generation <= generation),
      `the pan is the same view: generations ${[...new Set(host.tileRequests.map((m) => m.generation))]}, ${generation} before it`,
    );
    const { checked } = await checkPixels(page, 'type');
    assert.ok(checked >= 20, `checked ${checked} pixels`);
    assert.deepEqual(errors, []);
    await page.close();
  });

  it("a recording lights the cells it read: the lit count is the tiles' and the distinct objects the recording's", async () => {
    const { page, host } = await openMap();
    await settled(page);
    await page.locator('#recording').selectOption(traceFile);
    await settled(page);
    await page.waitForFunction(() => document.getElementById('recording-stats').dataset.complete === 'true');
    const order = Number(await page.evaluate(() => document.getElementById('scale').dataset.order));
    const stats = await page.evaluate(() => ({
      ...document.getElementById('recording-stats').dataset,
      text: document.getElementById('recording-stats').textContent,
    }));
    const whole = overlayMap.render(order, 'type', { x: 0, y: 0, width: 2 ** order, height: 2 ** order });
    assert.equal(Number(stats.lit), whole.litCells, 'at zoom 0 the view holds the whole map');
    assert.equal(Number(stats.objects), new Set(traced).size);
    assert.match(stats.text, new RegExp(`${traced.length} reads of ${new Set(traced).size} distinct objects`));
    assert.ok(host.tileRequests.some((m) => m.wanted.recording === traceFile));
    for (let i = 0; i < 5; i++) await page.locator('#zoom-in').click();
    await settled(page);
    const { checked } = await checkPixels(page, 'type', overlayMap);
    assert.ok(checked >= 20, `checked ${checked} heat pixels`);
    await page.screenshot({ path: path.join(outDir, 'pack-map-recording.png') });
    await page.close();
  });

  it("draws a delta family as arcs from each delta to its base, and the recording's reads as a path a scrubber steps through", async () => {
    const { page, errors } = await openMap();
    await settled(page);
    // Snapshots stay in the page (a canvas is megabytes): canvasPixels names one, changed counts differing pixels there.
    let snapshots = 0;
    const canvasPixels = async () => {
      const name = `snap${snapshots++}`;
      await page.evaluate((key) => {
        const c = document.getElementById('map-canvas');
        (window.__snaps ??= {})[key] = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
      }, name);
      return name;
    };
    const changed = (a, b) =>
      page.evaluate(
        ([x, y]) => {
          const p = window.__snaps[x];
          const q = window.__snaps[y];
          let n = 0;
          for (let i = 0; i < p.length; i += 4)
            if (p[i] !== q[i] || p[i + 1] !== q[i + 1] || p[i + 2] !== q[i + 2]) n++;
          return n;
        },
        [a, b],
      );
    const plain = await canvasPixels();
    // The deepest object's family: asked for through the object panel's button, after a hover.
    let deepest = 0;
    for (let n = 0; n < model.count; n++) if (model.columns.depth[n] > model.columns.depth[deepest]) deepest = n;
    const expected = familyArcs(model, deepest);
    assert.ok(expected.arcs.length >= 5, `a family with arcs (${expected.arcs.length})`);
    const cell = baseMap.cellOf(info.maxOrder, deepest);
    const [cx, cy] = (await tsImport('../../src/common/pack-map-geometry.ts', import.meta.url)).hilbertPoint(
      info.maxOrder,
      cell,
    );
    const box = await canvasBox(page);
    const side = Math.min(box.width, box.height);
    const at = {
      x: box.width / 2 + ((cx + 0.5) / 2 ** info.maxOrder - 0.5) * side,
      y: box.height / 2 + ((cy + 0.5) / 2 ** info.maxOrder - 0.5) * side,
    };
    await page.mouse.move(box.left + at.x, box.top + at.y);
    await page.locator('#map-tooltip:not([hidden])').waitFor();
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
    // With the hovered cell's outline (it stays while the pointer is on the button).
    const hoveredPlain = await canvasPixels();
    await page.locator('#show-family').click();
    await page.locator('#family-text').waitFor();
    const shown = await page.evaluate(() => ({ ...document.getElementById('family-text').dataset }));
    const asked = await page.evaluate(() => window.__states.at(-1).family);
    const f = familyArcs(model, model.findHex(asked));
    assert.deepEqual(shown, {
      members: String(f.members),
      drawnMembers: String(f.memberOffsets.length),
      arcs: String(f.arcs.length),
    });
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
    const withFamily = await canvasPixels();
    assert.ok((await changed(hoveredPlain, withFamily)) > f.arcs.length, 'the arcs and member marks are drawn');
    assert.ok(
      (await changed(plain, hoveredPlain)) > 0 &&
        (await changed(plain, hoveredPlain)) < (await changed(plain, withFamily)),
    );
    await page.screenshot({ path: path.join(outDir, 'pack-map-family.png') });
    await page.locator('#map-canvas').focus();
    await page.keyboard.press('Escape');
    await page.waitForFunction(() => document.getElementById('family-text') === null);
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
    assert.equal(await changed(hoveredPlain, await canvasPixels()), 0, 'cleared: the map as before');

    // The recording's seek path: every read, git's order, packscope locality's figures.
    await page.locator('#recording').selectOption(traceFile);
    await page.locator('#seeks').check();
    // Visible at once with "Reading the recording's seeks…"; the figures come with the server's reply.
    await page.locator('#seek-stats[data-reads]').waitFor();
    const stats = await page.evaluate(() => ({
      ...document.getElementById('seek-stats').dataset,
      text: document.getElementById('seek-stats').textContent,
    }));
    const p = seekPathOf(PANES[0]);
    assert.equal(Number(stats.reads), traced.length);
    assert.equal(Number(stats.backward), traced.filter((o, i) => i > 0 && o < traced[i - 1]).length);
    assert.equal(Number(stats.faults), p.locality.pageFaults);
    assert.match(stats.text, new RegExp(`${traced.length} reads, ${traced.length - 1} seeks`));
    await settled(page);
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
    const heat = await page.evaluate(() => document.getElementById('seek-position').dataset);
    assert.equal(Number(heat.step), traced.length, 'the whole path at first');
    await page.screenshot({ path: path.join(outDir, 'pack-map-seeks.png') });
    const full = await canvasPixels();
    await page.locator('#seek-scrubber').fill('1');
    await page.waitForFunction(() => document.getElementById('seek-position').dataset.step === '1');
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
    const first = await canvasPixels();
    await page.locator('#seeks').uncheck();
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
    const none = await canvasPixels();
    assert.ok(
      (await changed(none, full)) > (await changed(none, first)),
      'stepping back to the first read draws less of the path',
    );
    assert.ok((await changed(none, first)) > 0, 'the first read is marked');
    // Play steps through to the end.
    await page.locator('#seeks').check();
    await page.locator('#seek-scrubber').fill('1');
    await page.locator('#seek-play').click();
    await page.waitForFunction(
      (n) => document.getElementById('seek-position').dataset.step === String(n),
      traced.length,
      { timeout: 20_000 },
    );
    assert.deepEqual(errors, []);
    await page.close();
  });

  it('before and after: two packs side by side, labelled, one legend, one camera that zoom, drag and keys in either pane move for both', async () => {
    const { page, errors, host } = await openMap({ compare: true, push: true });
    await settled(page);
    // Each pane names its pack: which one it is, its objects and bytes.
    const today = (await page.locator('#summary').innerText()).replace(/\s+/g, ' ');
    const preview = (await page.locator('#summary-1').innerText()).replace(/\s+/g, ' ');
    assert.match(today, new RegExp(`^today: ${path.basename(files.pack)} ${model.count} objects, `));
    assert.match(
      preview,
      new RegExp(`^after repack preview: ${path.basename(afterFiles.pack)} ${afterModel.count} objects, `),
    );
    assert.equal(await page.locator('#summary').getAttribute('title'), files.pack);
    assert.equal(await page.locator('#summary-1').getAttribute('title'), afterFiles.pack);
    // One legend: both packs hold the same types.
    assert.deepEqual(
      await page.locator('#legend li').allTextContents(),
      info.legends.type.map((e) => e.label),
    );
    // Both panes' first views were pushed, each its own pack's tiles, and none asked for again.
    assert.ok(host.pushed.some((key) => key.endsWith('|0')) && host.pushed.some((key) => key.endsWith('|1')));
    assert.deepEqual(
      host.tileRequests.map((m) => m.key).filter((key) => host.pushed.includes(key)),
      [],
    );
    const box0 = await canvasBox(page, 0);
    const box1 = await canvasBox(page, 1);
    assert.ok(box1.left >= box0.left + box0.width, `side by side: ${JSON.stringify([box0, box1])}`);
    assert.equal(box0.width, box1.width);
    assert.equal(box0.height, box1.height);
    const orders = async () =>
      page.evaluate(() => [
        Number(document.getElementById('scale').dataset.order),
        Number(document.getElementById('scale-1').dataset.order),
      ]);
    const [o0, o1] = await orders();
    // Zoom with keys in the second pane: the camera is the page's, both panes draw it.
    await page.locator('#map-canvas-1').focus();
    // (Six steps: cells of several pixels, whose middles the pixel check can tell from their edges.)
    for (let i = 0; i < 6; i++) await page.keyboard.press('+');
    await page.waitForFunction(() => window.__states.at(-1).camera.zoom === 6);
    await settled(page);
    assert.deepEqual(await orders(), [Math.min(info.maxOrder, o0 + 6), Math.min(afterInfo.maxOrder, o1 + 6)]);
    for (const pane of [0, 1]) {
      const { checked } = await checkPixels(page, 'type', PANES[pane].baseMap, pane);
      assert.ok(checked >= 20, `pane ${pane}: checked ${checked} pixels`);
    }
    // A drag in the first pane pans both.
    const zoomed = await camera(page);
    await page.mouse.move(box0.left + 200, box0.top + 200);
    await page.mouse.down();
    await page.mouse.move(box0.left + 260, box0.top + 230, { steps: 5 });
    await page.mouse.up();
    const dragged = await camera(page);
    const s = Math.min(box0.width, box0.height) * 2 ** zoomed.zoom;
    assert.ok(
      Math.abs(dragged.centerX - (zoomed.centerX - 60 / s)) < 1e-9 &&
        Math.abs(dragged.centerY - (zoomed.centerY - 30 / s)) < 1e-9,
      JSON.stringify([zoomed, dragged]),
    );
    // The wheel over the second pane keeps the map point under it in place (in both: one camera).
    await page.mouse.move(box1.left + box1.width * 0.3, box1.top + box1.height * 0.4);
    await page.mouse.wheel(0, -200);
    await page.waitForFunction((z) => window.__states.at(-1).camera.zoom > z, dragged.zoom);
    await settled(page);
    for (const pane of [0, 1]) {
      // The pointer hovered cells on its way (the drag's end, the wheel's point): their outlines are drawn.
      const outlined = host.posted.filter((m) => m.type === 'objectAt' && m.pane === pane);
      const { checked } = await checkPixels(page, 'type', PANES[pane].baseMap, pane, outlined);
      assert.ok(checked >= 20, `pane ${pane} after drag and wheel: checked ${checked} pixels`);
    }
    // Hovering either pane names the object of that pane's pack.
    const cam = await camera(page);
    for (const pane of [0, 1]) {
      const box = pane === 0 ? box0 : box1;
      const order = (await orders())[pane];
      const point = { x: box.width / 2 + 23, y: box.height / 2 - 17 };
      await page.mouse.move(box.left + point.x, box.top + point.y);
      await page.locator(`#${paneId('map-tooltip', pane)}:not([hidden])`).waitFor();
      const cell = cellUnder(box, cam, order, point.x, point.y);
      const asked = host.posted.filter((m) => m.type === 'objectAt').at(-1);
      assert.deepEqual([asked.pane, asked.order, asked.x, asked.y], [pane, order, cell.x, cell.y]);
      const n = PANES[pane].baseMap.objectAtCell(order, cell.x, cell.y);
      assert.equal(
        await page.locator(`#${paneId('map-tooltip', pane)}`).getAttribute('data-oid'),
        PANES[pane].model.oidHex(n),
      );
      await page.mouse.click(box.left + point.x, box.top + point.y);
      await page.waitForFunction((_pane) => true, pane);
    }
    await new Promise((r) => setTimeout(r, 200));
    assert.deepEqual(
      host.posted.filter((m) => m.type === 'openObject').map((m) => m.pane),
      [0, 1],
    );
    // The recording over both: each pane's lit cells are its own pack's (the same objects, laid out twice).
    await page.locator('#map-canvas').focus();
    await page.keyboard.press('0');
    await page.waitForFunction(() => window.__states.at(-1).camera.zoom === 0);
    await page.locator('#recording').selectOption(traceFile);
    await settled(page);
    await page.waitForFunction(
      () =>
        document.getElementById('recording-stats').dataset.complete === 'true' &&
        document.getElementById('recording-stats-1').dataset.complete === 'true',
    );
    for (const pane of [0, 1]) {
      const order = (await orders())[pane];
      const stats = await page.evaluate(
        (id) => ({ ...document.getElementById(id).dataset }),
        paneId('recording-stats', pane),
      );
      const whole = PANES[pane].overlayMap.render(order, 'type', { x: 0, y: 0, width: 2 ** order, height: 2 ** order });
      assert.equal(Number(stats.lit), whole.litCells, `pane ${pane}: lit cells`);
      assert.equal(Number(stats.objects), new Set(traced).size);
      // Its locality, without asking for the seek path: the comparison's figures.
      await page.waitForFunction(
        (id) => document.getElementById(id)?.dataset.reads !== undefined,
        paneId('seek-stats', pane),
      );
      const seekStats = await page.evaluate(
        (id) => ({ ...document.getElementById(id).dataset }),
        paneId('seek-stats', pane),
      );
      const p = seekPathOf(PANES[pane]);
      assert.deepEqual(
        [Number(seekStats.reads), Number(seekStats.faults), Number(seekStats.pagesTouched)],
        [traced.length, p.locality.pageFaults, p.locality.pagesTouched],
        `pane ${pane}: locality`,
      );
    }
    assert.ok(
      host.posted.every((m) => protocol.isWebviewToHost(m)),
      'every message the page sent is one the host accepts',
    );
    await page.screenshot({ path: path.join(outDir, 'pack-map-before-after.png') });
    // A reload keeps both packs and the view.
    const saved = await page.evaluate(() => window.__states.at(-1));
    assert.equal(saved.pack, files.pack);
    assert.equal(saved.after, afterFiles.pack);
    assert.deepEqual(errors, []);
    await page.close();
  });

  it("marks the engine's offsets: the ruler's start, end and ticks, and the same offsets on the map where the curve passes them", async () => {
    const { page, errors } = await openMap();
    await settled(page);
    const span = baseMap.dataEnd - baseMap.dataStart;
    // The ruler under the map: the whole pack, start at the first object's byte, end at the checksum's.
    const ruler = await page.locator('#ruler .ruler-mark').evaluateAll((marks) =>
      marks.map((m) => ({
        kind: m.dataset.kind,
        offset: Number(m.dataset.offset),
        left: parseFloat(m.style.left),
        label: m.textContent,
      })),
    );
    assert.equal(ruler[0].kind, 'start');
    assert.equal(ruler[0].offset, baseMap.dataStart);
    assert.equal(ruler[0].offset, model.columns.offset[model.columns.byOffset[0]], 'the first object starts the map');
    assert.equal(ruler.at(-1).kind, 'end');
    assert.equal(ruler.at(-1).offset, fs.statSync(files.pack).size - 20, "the end: the pack's checksum's first byte");
    assert.equal(ruler.at(-1).offset, baseMap.dataEnd);
    assert.equal(ruler[0].label, `start ${baseMap.dataStart}`);
    assert.equal(ruler.at(-1).label, `end ${baseMap.dataEnd.toLocaleString('en-US')}`);
    const ticks = ruler.filter((m) => m.kind === 'tick');
    assert.ok(ticks.length >= 2, JSON.stringify(ruler));
    const step = ticks[1].offset - ticks[0].offset;
    for (const [i, mark] of ruler.entries()) {
      assert.ok(Math.abs(mark.left - ((mark.offset - baseMap.dataStart) / span) * 100) < 0.01, JSON.stringify(mark));
      if (mark.kind !== 'tick') continue;
      assert.equal(mark.offset % step, 0, 'ticks at round offsets');
      if (i > 1 && ruler[i - 1].kind === 'tick') assert.equal(mark.offset - ruler[i - 1].offset, step);
      // Its label is its offset, exactly.
      const [, value, unit] = /^([\d,]+) (B|KiB|MiB)$/.exec(mark.label);
      assert.equal(Number(value.replaceAll(',', '')) * { B: 1, KiB: 1024, MiB: 1 << 20 }[unit], mark.offset);
    }
    // What a cell holds, at the order drawn: the engine's bytes per cell.
    const order0 = Number(await page.locator('#ruler').getAttribute('data-order'));
    assert.equal(
      Number(await page.locator('#ruler').getAttribute('data-bytes-per-cell')),
      baseMap.bytesPerCell(order0),
    );
    // The whole pack in view: one shaded stretch from start to end.
    const shaded = await page
      .locator('#ruler .ruler-view')
      .evaluateAll((s) => s.map((e) => [Number(e.dataset.start), Number(e.dataset.end)]));
    assert.deepEqual(shaded, [[baseMap.dataStart, baseMap.dataEnd]]);
    const whole = JSON.parse(await page.locator('#ruler').getAttribute('data-marks'));
    assert.deepEqual(
      [whole[0].kind, whole.at(-1).kind],
      ['start', 'end'],
      'the whole map shows where the curve starts and ends',
    );
    await page.screenshot({ path: path.join(outDir, 'pack-map-ruler-whole.png') });

    // Zoomed in (cells several pixels wide): every mark on the map sits on the cell holding its offset,
    // as the engine lays bytes into cells; hovering the mark names that cell and its object.
    for (let i = 0; i < 4; i++) await page.locator('#zoom-in').click();
    await page.locator('#map-canvas').focus();
    for (let i = 0; i < 3; i++) await page.keyboard.press('ArrowLeft');
    await settled(page);
    const box = await canvasBox(page);
    const marks = JSON.parse(await page.locator('#ruler').getAttribute('data-marks'));
    assert.ok(marks.length >= 2, JSON.stringify(marks));
    const order = Number(await page.locator('#ruler').getAttribute('data-order'));
    const shownMarks = await page
      .locator('#map-marks .map-mark')
      .evaluateAll((m) => m.map((e) => [e.dataset.kind, Number(e.dataset.offset), e.textContent]));
    assert.deepEqual(
      shownMarks.map(([kind, offset]) => [kind, offset]),
      marks.map((m) => [m.kind, m.offset]),
    );
    for (const mark of marks) {
      assert.equal(mark.order, order);
      const at = mark.kind === 'end' ? baseMap.dataEnd - 1 : mark.offset;
      await page.mouse.move(box.left + mark.x, box.top + mark.y);
      await page.waitForFunction(
        ([x, y]) => {
          const tip = document.getElementById('map-tooltip');
          const cell = tip.dataset.cell?.split(',').map(Number);
          return !tip.hidden && cell && tip.dataset.order !== undefined && cell.length === 2 && x >= 0 && y >= 0;
        },
        [mark.x, mark.y],
      );
      const [cx, cy] = (await page.locator('#map-tooltip').getAttribute('data-cell')).split(',').map(Number);
      const cam = await camera(page);
      const expected = cellUnder(box, cam, order, mark.x, mark.y);
      assert.deepEqual([cx, cy], [expected.x, expected.y], `mark ${mark.offset}: hovered the cell under it`);
      const [start, end] = baseMap.cellBytes(order, hilbertIndex(order, cx, cy));
      assert.ok(start <= at && (at < end || start === end), `offset ${at} in cell ${cx},${cy}: bytes ${start}..${end}`);
      const n = baseMap.objectAtCell(order, cx, cy);
      assert.equal(await page.locator('#map-tooltip').getAttribute('data-oid'), model.oidHex(n));
    }
    await page.mouse.move(box.left + 5, box.top + 5);
    await page.screenshot({ path: path.join(outDir, 'pack-map-ruler.png') });
    // The canvas holds the map's cells alone: the marks are above it.
    const { checked } = await checkPixels(page, 'type');
    assert.ok(checked >= 20, `checked ${checked}`);
    assert.deepEqual(errors, []);
    await page.close();
  });

  it('shows the size colouring as a scale: the ramp from 16 B to the largest object, sizes where they fall', async () => {
    const { page } = await openMap();
    await settled(page);
    await page.locator('#attribute').selectOption('disk-size');
    await page.locator('#legend .size-scale').waitFor();
    const ticks = await page
      .locator('#legend .size-tick')
      .evaluateAll((t) => t.map((e) => [Number(e.dataset.bytes), Number(e.dataset.at), parseFloat(e.style.left)]));
    assert.equal(ticks[0][0], 16);
    assert.equal(ticks.at(-1)[0], baseMap.largestOnDisk);
    assert.equal(ticks[0][1], 0);
    assert.equal(ticks.at(-1)[1], 1);
    const low = Math.log2(16);
    const high = Math.log2(baseMap.largestOnDisk);
    for (const [bytes, at, left] of ticks) {
      assert.ok(Math.abs(at - (Math.log2(bytes) - low) / (high - low)) < 1e-3, `${bytes} at ${at}`);
      assert.ok(Math.abs(left - at * 100) < 0.01);
    }
    // The ramp's colours are the map's: its ends are the engine's colours of 16 B and the largest object.
    const ends = await page.locator('#legend .size-scale canvas').evaluate((c) => {
      const d = c.getContext('2d').getImageData(0, 0, c.width, 1).data;
      return [[...d.slice(0, 3)], [...d.slice(d.length - 4, d.length - 1)]];
    });
    const { diskSizeColour } = await tsImport('../../src/common/pack-map-geometry.ts', import.meta.url);
    assert.deepEqual(ends, [
      [...diskSizeColour(16, baseMap.largestOnDisk)],
      [...diskSizeColour(baseMap.largestOnDisk, baseMap.largestOnDisk)],
    ]);
    await page.screenshot({ path: path.join(outDir, 'pack-map-size-scale.png') });
    await page.close();
  });

  it('refreshes the tooltip after a wheel zoom: it names the cell under the pointer at the new order', async () => {
    const { page } = await openMap();
    await settled(page);
    // One step in: the order drawn is still above the deepest (the wheel has a deeper one to go to).
    await page.locator('#zoom-in').click();
    await settled(page);
    assert.ok(Number(await page.evaluate(() => document.getElementById('scale').dataset.order)) < info.maxOrder);
    const box = await canvasBox(page);
    const point = { x: box.width / 2 + 53, y: box.height / 2 + 31 };
    await page.mouse.move(box.left + point.x, box.top + point.y);
    await page.locator('#map-tooltip:not([hidden])').waitFor();
    const before = {
      order: await page.locator('#map-tooltip').getAttribute('data-order'),
      cell: await page.locator('#map-tooltip').getAttribute('data-cell'),
      text: await page.locator('#map-tooltip').textContent(),
    };
    // One whole zoom step by the wheel: the order drawn is one deeper, the cell under the pointer another.
    await page.mouse.wheel(0, -500);
    await settled(page);
    const order = Number(await page.evaluate(() => document.getElementById('scale').dataset.order));
    assert.equal(order, Number(before.order) + 1);
    await page.waitForFunction((o) => document.getElementById('map-tooltip').dataset.order === String(o), order);
    const cam = await camera(page);
    // The pointer as the page saw it (rounded to whole CSS pixels), the cell under it at the new camera.
    const [ax, ay] = (await page.locator('#map-tooltip').getAttribute('data-at')).split(',').map(Number);
    assert.ok(Math.abs(ax - point.x) <= 1 && Math.abs(ay - point.y) <= 1, `${ax},${ay}`);
    const cell = cellUnder(box, cam, order, ax, ay);
    assert.equal(await page.locator('#map-tooltip').getAttribute('data-cell'), `${cell.x},${cell.y}`);
    assert.notEqual(await page.locator('#map-tooltip').getAttribute('data-cell'), before.cell);
    const text = await page.locator('#map-tooltip').textContent();
    assert.notEqual(text, before.text, 'the tooltip changed with the zoom');
    const [start] = baseMap.cellBytes(order, hilbertIndex(order, cell.x, cell.y));
    assert.match(text, new RegExp(`this cell: bytes? ${start.toLocaleString('en-US')}`));
    assert.ok(text.includes(model.oidHex(baseMap.objectAtCell(order, cell.x, cell.y))), text);
    await page.close();
  });

  it('answers keys whatever has focus in the page (F with a button focused), but not in a select', async () => {
    const { page, host } = await openMap();
    await settled(page);
    for (let i = 0; i < 4; i++) await page.locator('#zoom-in').click();
    await settled(page);
    const box = await canvasBox(page);
    await page.mouse.move(box.left + box.width / 2 - 40, box.top + box.height / 2 + 12);
    await page.locator('#map-tooltip:not([hidden])').waitFor();
    const oid = await page.locator('#map-tooltip').getAttribute('data-oid');
    // The focus on a toolbar button, as after clicking it; the pointer still over the map.
    await page.locator('#zoom-reset').focus();
    assert.equal(await page.evaluate(() => document.activeElement.id), 'zoom-reset');
    await page.keyboard.press('f');
    await until(
      () => host.posted.some((m) => m.type === 'family' && m.oid === oid),
      `a family request for ${oid} after F`,
    );
    await page.locator('#family-panel #clear-family').waitFor();
    // + with the object panel's button focused zooms, as on the map.
    const zoom = (await camera(page)).zoom;
    await page.locator('#open-object').focus();
    await page.keyboard.press('+');
    await page.waitForFunction((z) => window.__states.at(-1).camera.zoom === z + 1, zoom);
    await settled(page);
    // Enter on a focused button presses the button (Open object), and nothing else.
    const opened = host.posted.filter((m) => m.type === 'openObject').length;
    await page.keyboard.press('Enter');
    await until(() => host.posted.filter((m) => m.type === 'openObject').length === opened + 1, 'Open object pressed');
    // A select keeps its keys: + and F there neither zoom nor draw.
    const families = host.posted.filter((m) => m.type === 'family').length;
    const zoomNow = (await camera(page)).zoom;
    await page.locator('#attribute').focus();
    await page.keyboard.press('+');
    await page.keyboard.press('f');
    await new Promise((r) => setTimeout(r, 300));
    assert.equal((await camera(page)).zoom, zoomNow);
    assert.equal(host.posted.filter((m) => m.type === 'family').length, families);
    await page.close();
  });

  it('restores the state it saved: attribute, recording and view after a reload', async () => {
    const saved = {
      version: 1,
      pack: files.pack,
      repository: '/repo',
      attribute: 'depth',
      recording: null,
      camera: { zoom: 2, centerX: 0.25, centerY: 0.75 },
    };
    const { page, host } = await openMap({ theme: 'light', initialState: saved });
    await settled(page);
    const box = await canvasBox(page);
    assert.equal(await page.locator('#attribute').inputValue(), 'depth');
    assert.deepEqual(await camera(page), saved.camera);
    const expectedOrder = Math.min(info.maxOrder, Math.floor(Math.log2(Math.min(box.width, box.height) * 4 * box.dpr)));
    assert.ok(host.tileRequests.every((m) => m.wanted.attribute === 'depth'));
    assert.equal(host.tileRequests[0].wanted.order, expectedOrder);
    await page.screenshot({ path: path.join(outDir, 'pack-map-light-depth.png') });
    await page.close();
  });

  // The 16 ms bar is bench/pack-map.bench.ts's (a timed assertion here failed on a loaded machine,
  // load 19 on 2 cores); this test checks that every zoom and pan step draws and reports its time.
  it("zoom and pan steps each draw a frame and report its time (performance.now() around each draw; the bar is the bench's)", async () => {
    const { page } = await openMap();
    await settled(page);
    const box = await canvasBox(page);
    await page.mouse.move(box.left + box.width / 2, box.top + box.height / 2);
    const frames = [];
    const sample = async () =>
      frames.push(Number(await page.evaluate(() => document.getElementById('frame-time').dataset.lastMs)));
    for (let i = 0; i < 40; i++) {
      await page.mouse.wheel(0, -60);
      await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => r())));
      await sample();
    }
    await settled(page);
    await page.mouse.down();
    for (let i = 0; i < 40; i++) {
      await page.mouse.move(box.left + box.width / 2 - i * 6, box.top + box.height / 2 - i * 3);
      await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => r())));
      await sample();
    }
    await page.mouse.up();
    for (let i = 0; i < 40; i++) {
      await page.mouse.wheel(0, 60);
      await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => r())));
      await sample();
    }
    const worst = Number(await page.evaluate(() => document.getElementById('frame-time').dataset.worstMs));
    const sorted = [...frames].sort((a, b) => a - b);
    const median = sorted[Math.floor(sorted.length / 2)];
    console.log(
      `pack map frames over ${frames.length} zoom/pan steps: median ${median.toFixed(2)} ms, slowest sampled ${sorted.at(-1).toFixed(2)} ms, slowest of the page's last 120 draws ${worst.toFixed(2)} ms`,
    );
    assert.equal(frames.length, 120);
    assert.ok(
      frames.every((f) => Number.isFinite(f) && f >= 0),
      `frame times ${frames.join(', ')}`,
    );
    assert.ok(Number.isFinite(worst));
    await page.close();
  });
});
