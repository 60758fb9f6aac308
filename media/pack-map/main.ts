// The Pack Map webview: one pack along its offsets on a Hilbert curve, drawn on one
// canvas from tiles the server renders (packscope/packMapTile, through the host). Level of detail:
// at zoom z the view asks for tiles of order base + z, so that a tile of 256 cells covers 256 to 512
// device pixels at any zoom, keeps the tiles it has (a few hundred), and paints the coarser tiles it
// holds under a finer one that is still loading. No element per object: the map is one canvas, the
// hovered object one tooltip. Colours are the server's (data); the chrome takes VS Code's theme.
//
// A panel draws one pack or two (a Repack Preview's before and after): each pack is a pane with its
// own canvas, tiles, hover and overlays; the camera, the attribute, the recording and the legend are
// the page's, so that both panes always show the same place in the same colours. A panel of one
// pack is the one-pane case of this same code.
import { formatBytes, formatCount } from '../../src/common/format.ts';
import { normalizeCamera } from '../../src/presentation/pack-map-state.ts';
import {
  type HostToWebview,
  PACK_MAP_PROTOCOL_VERSION,
  type PackMapFirstView,
} from '../../src/protocol/pack-map-protocol.ts';
import { h, replaceChildren } from '../common/dom.ts';
import { animateTo, zoomBy } from './camera.ts';
import { draw, resize } from './draw.ts';
import { listen, listenPane } from './input.ts';
import { drawLegend } from './legend.ts';
import { showFamily, showSeeks } from './overlays.ts';
import {
  type Pane,
  ROLE_LABELS,
  attributeSelect,
  button,
  comparing,
  familyPanel,
  frameText,
  host,
  legendList,
  noteText,
  objectPanel,
  onHostMessage,
  paintWith,
  paneId,
  panes,
  recordingSelect,
  replaceState,
  root,
  saveState,
  seekPanel,
  seeksLabel,
  setRecordings,
  state,
  statusText,
} from './page.ts';
import { acceptTile, expectPushed, settlePushed } from './tiles.ts';

onHostMessage((message) => {
  if (message.type === 'show') show(message);
  else if (message.type === 'recordings') setRecordings(message.recordings);
  // A first-view tile the host fetched without being asked (show's `pushing`).
  else if (message.type === 'tile' || message.type === 'tileFailed')
    void acceptTile(message.key, message).finally(() => settlePushed(message.key));
});
paintWith(draw);

function createPane(index: number): Pane {
  const canvas = h('canvas', {
    id: paneId('map-canvas', index),
    class: 'map-canvas',
    tabindex: 0,
    role: 'img',
    'aria-label': 'Pack map',
  });
  const tooltip = h('div', { id: paneId('map-tooltip', index), class: 'map-tooltip', role: 'tooltip', hidden: true });
  const marks = h('div', { id: paneId('map-marks', index), class: 'map-marks', 'aria-hidden': 'true' });
  const viewport = h('div', { id: paneId('viewport', index), class: 'viewport' }, canvas, marks, tooltip);
  const pane: Pane = {
    index,
    role: 'pack',
    info: undefined,
    section: h('section', { class: 'pane', 'data-pane': index }),
    viewport,
    canvas,
    context2d: canvas.getContext('2d')!,
    tooltip,
    summary: h('p', { id: paneId('summary', index), class: 'summary' }),
    scaleText: h('p', { id: paneId('scale', index), class: 'scale', 'aria-live': 'polite' }),
    marks,
    ruler: h('div', { id: paneId('ruler', index), class: 'ruler', role: 'group', 'aria-label': 'Pack offsets' }),
    recordingStats: h('p', { id: paneId('recording-stats', index), class: 'recording-stats', 'aria-live': 'polite' }),
    seekStats: h('p', { id: paneId('seek-stats', index), class: 'seek-stats', hidden: true }),
    familyText: h('p', { id: paneId('family-text', index), class: 'family-text' }),
    cssWidth: 1,
    cssHeight: 1,
    wanted: [],
    hovered: undefined,
    hoverRequest: undefined,
    hoverBusy: false,
    family: undefined,
    seeks: undefined,
  };
  listenPane(pane);
  return pane;
}

panes.push(createPane(0));

/**
 * One pane: the map and, below it, its scale. Comparing, each pane carries its own figures above
 * its map (which pack, its objects and bytes, the recording's reads and locality in it); alone, they
 * sit in the side column as they always have.
 */
function layout(): void {
  for (const pane of panes) {
    pane.section.classList.toggle('compared', comparing());
    replaceChildren(
      pane.section,
      comparing() ? h('div', { class: 'pane-caption' }, pane.summary, pane.recordingStats, pane.seekStats) : null,
      pane.viewport,
      pane.ruler,
      comparing() ? pane.scaleText : null,
    );
  }
  const alone = panes[0]!;
  replaceChildren(
    root,
    h(
      'header',
      { class: 'toolbar' },
      h('label', {}, 'Colour ', attributeSelect),
      h('label', {}, 'Recording ', recordingSelect),
      button('zoom-out', '−', comparing() ? 'Zoom both maps out (−)' : 'Zoom out (−)', () => zoomBy(-1)),
      button('zoom-in', '+', comparing() ? 'Zoom both maps in (+)' : 'Zoom in (+)', () => zoomBy(1)),
      button('zoom-reset', comparing() ? 'Whole packs' : 'Whole pack', 'The whole pack (0)', () =>
        animateTo({ zoom: 0, centerX: 0.5, centerY: 0.5 }),
      ),
    ),
    h(
      'div',
      { class: 'map-body' },
      h('div', { class: `panes${comparing() ? ' compared' : ''}` }, ...panes.map((p) => p.section)),
      h(
        'aside',
        { class: 'side' },
        noteText,
        comparing()
          ? h(
              'p',
              { class: 'note' },
              'Both maps show the same stretch of their pack: the same fraction of each file’s bytes, so that reads close together in one pack and scattered in the other look it.',
            )
          : null,
        comparing() ? null : alone.summary,
        comparing() ? null : alone.scaleText,
        legendList,
        comparing() ? null : alone.recordingStats,
        seeksLabel,
        seekPanel,
        objectPanel,
        familyPanel,
        h(
          'p',
          { class: 'note' },
          `Drag or arrow keys to pan; wheel, + and − to zoom${comparing() ? ' (both maps move together)' : ''}; 0 for the whole pack. Click (or Enter) opens the object under the pointer (the centre, with keys); Shift-click reveals it in the Packs view; F draws its delta family, Escape clears it.`,
        ),
        frameText,
        statusText,
      ),
    ),
  );
  root.removeAttribute('aria-busy');
}

function show({
  panes: shown,
  repository,
  recordings: choices,
  recording,
  pushing = [],
  note,
}: Extract<HostToWebview, { type: 'show' }>): void {
  // Tiles on their way unasked: not asked for again (pumpTiles cancels those the view no longer wants).
  expectPushed(pushing);
  const pack = shown[0]!.info.pack;
  const after = shown[1]?.info.pack ?? null;
  if (state.pack !== pack || state.after !== after)
    replaceState({
      ...state,
      pack,
      after,
      camera: normalizeCamera(undefined),
      family: null,
      ...(recording !== undefined ? { recording } : {}),
    });
  state.repository = repository;
  while (panes.length < shown.length) panes.push(createPane(panes.length));
  panes.splice(shown.length);
  shown.forEach(({ role, info }, index) => {
    const pane = panes[index]!;
    pane.role = role;
    pane.info = info;
    const label = ROLE_LABELS[role];
    pane.section.dataset.role = role;
    pane.canvas.setAttribute('aria-label', label === '' ? 'Pack map' : `Pack map, ${label}: ${info.packName}`);
    replaceChildren(
      pane.summary,
      label === '' ? null : h('span', { class: 'role' }, `${label}: `),
      h('strong', {}, info.packName),
      h('br'),
      `${formatCount(info.objects)} objects, ${formatBytes(info.packBytes)}`,
    );
    pane.summary.title = info.pack;
  });
  layout();
  noteText.textContent = note ?? '';
  noteText.hidden = note === undefined;
  attributeSelect.value = state.attribute;
  setRecordings(choices);
  drawLegend();
  saveState();
  resize();
  // Drawn now, not at the next frame: the first tile requests leave at once.
  draw();
  // Restored after a reload: the family and the seek path the state names.
  for (const pane of panes) {
    pane.family = undefined;
    pane.seeks = undefined;
  }
  void showFamily(state.family);
  void showSeeks();
}

/**
 * With `ready`, when the page opens on the whole pack: what it will show first (PackMapFirstView),
 * so that the host fetches those tiles at once. The page learns how many panes it has from `show`:
 * a panel restored with a preview beside its pack is measured as two panes already.
 */
function firstView(): { firstView?: PackMapFirstView } {
  if (state.camera.zoom !== 0) return {};
  const box = panes[0]!.viewport.getBoundingClientRect();
  const width = state.after !== null ? box.width / 2 : box.width;
  // As resize() and scale() size the map: the canvas's smaller whole CSS side, in device pixels.
  const side = Math.max(1, Math.min(Math.floor(width), Math.floor(box.height))) * (window.devicePixelRatio || 1);
  return {
    firstView: {
      sidePixels: side,
      attribute: state.attribute,
      ...(state.recording !== null ? { recording: state.recording } : {}),
    },
  };
}

layout();
listen();
void host.request({ type: 'ready', version: PACK_MAP_PROTOCOL_VERSION, ...firstView() }).then((reply) => {
  if (reply.type === 'failed')
    replaceChildren(
      root,
      h('p', { class: 'error', role: 'alert' }, `The pack map could not be drawn: ${reply.message}`),
    );
  else show(reply);
});
