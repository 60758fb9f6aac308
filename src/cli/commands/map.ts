import * as fs from 'node:fs';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { MAP_ATTRIBUTES, type MapAttribute, type Rgb } from '../../common/pack-map-geometry.ts';
import { markLabel, rulerMarks, sizeScaleRamp, sizeScaleStops } from '../../common/pack-map-scale.ts';
import { makeDirectories, writeAll, writeFileAtomically } from '../../core/atomic-file.ts';
import { fail } from '../../core/errors.ts';
import { PackMap, readsPerObject } from '../../core/map/pack-map.ts';
import { marksOnMap, pictureWithScales, type MapScales } from '../../core/map/picture.ts';
import { encodePng } from '../../core/map/png.ts';
import { refuseInsideAnyRepository } from '../../core/model/outside-repository.ts';
import type { PackLocation } from '../../core/model/object-store.ts';
import { formatBytes, formatCount, writeJson } from '../output.ts';
import { loadRecording } from '../load-recording.ts';
import { openObjectStore } from '../open-target.ts';
import type { Progress } from '../progress.ts';
import { cacheOptions, cacheOptionSpec } from './cache-options.ts';
import type { Command } from '../command.ts';

const mapHelp = `usage: packscope map [--attribute type|depth|family|disk-size] [--recording R [--segment N]]
                    [--size PIXELS] [--pack NAME] [--no-scales] [--json] [--force] -o FILE.png|FILE.svg [path]

Draws one pack along its offsets: the pack's bytes laid on a Hilbert curve filling a square, every
pixel the same number of bytes, so that distance in the picture is distance in the file (a seek of
N bytes is as long anywhere) and objects written together stay together. Each pixel shows the
object holding its first byte, coloured by --attribute (default type): object type, delta depth,
delta family (one hue per family root), or size on disk (log scale).

--recording R draws a recording's reads of that pack over it (pixels over which a read lies, as
heat; the rest dimmed) and prints how many objects were read and how many pixels lit.

[path] is a .pack or .idx file, or a repository (default: the current directory); in a repository
with several packs, --pack names one (a file name or a unique part of it), else the largest is
drawn. --size is the side in pixels, a power of two from 16 to 4096 (default 1024). A .svg
or .png output holds the picture with its scales: the pack's offsets marked where the curve passes
them (start, end and round offsets between), an offset ruler under it (the curve unrolled), the
caption with the bytes a pixel holds, the legend and, for disk-size, the size scale; the .svg as
text, the .png drawn in (and its words as the PNG's Description). The legend is also printed.
--no-scales writes the map alone, one pixel a cell and nothing over it, for a program to read. --json prints the "packscope.map/1" document (docs/json.md) instead of the legend.
The output is never written inside a repository. An existing output is replaced only with
--force, and only when it is a regular file: a symbolic link, a FIFO, a device or a directory is
refused. The picture is written to a new file beside the output and renamed over it.`;

export interface MapDocument {
  schema: 'packscope.map/1';
  pack: string;
  attribute: MapAttribute;
  /** Side of the square in pixels (2^order). */
  size: number;
  packBytes: number;
  bytesPerPixel: number;
  objects: number;
  legend: { label: string; rgb: Rgb }[];
  recording?: { file: string; reads: number; distinctObjects: number; litPixels: number };
  output: string;
}

// Stays long: a linear script: options, the pack, the recording, then the picture written.
function runMap(argv: string[], progress: Progress): number {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      attribute: { type: 'string' },
      recording: { type: 'string' },
      segment: { type: 'string' },
      size: { type: 'string' },
      pack: { type: 'string' },
      json: { type: 'boolean' },
      output: { type: 'string', short: 'o' },
      force: { type: 'boolean' },
      'no-scales': { type: 'boolean' },
      ...cacheOptionSpec,
    },
  });
  if (positionals.length > 1) throw fail('usage', undefined, undefined, 'map takes at most one path');
  const attribute = (values.attribute ?? 'type') as MapAttribute;
  if (!MAP_ATTRIBUTES.includes(attribute))
    throw fail('usage', undefined, undefined, `--attribute must be one of ${MAP_ATTRIBUTES.join(', ')}`);
  const size = values.size === undefined ? 1024 : Number(values.size);
  const order = Math.log2(size);
  if (!Number.isInteger(order) || size < 16 || size > 4096)
    throw fail('usage', undefined, undefined, '--size must be a power of two from 16 to 4096');
  const segment = values.segment === undefined ? undefined : Number(values.segment);
  if (segment !== undefined && (!Number.isInteger(segment) || segment < 1))
    throw fail('usage', undefined, undefined, '--segment needs a positive integer');
  if (segment !== undefined && values.recording === undefined)
    throw fail('usage', undefined, undefined, '--segment applies to a --recording');
  const output = values.output;
  if (output === undefined) throw fail('usage', undefined, undefined, 'map needs -o FILE.png or -o FILE.svg');
  const format = /\.svg$/i.test(output) ? 'svg' : /\.png$/i.test(output) ? 'png' : undefined;
  if (format === undefined) throw fail('usage', output, undefined, 'the output must end in .png or .svg');
  const outputPath = path.resolve(output);
  refuseInsideAnyRepository(
    outputPath,
    (root) => `is inside the repository ${root}; PackScope never writes inside a repository`,
  );
  refuseExistingOutput(outputPath, values.force === true);

  const store = openObjectStore(positionals[0] ?? '.', cacheOptions(values), progress);
  const pack = choosePack(store.packs, values.pack, store.repository.objectsDir);
  const model = progress.track(`Reading ${path.basename(pack.files.pack)}`, () => store.model(pack));
  let reads: Uint32Array | undefined;
  let recording: MapDocument['recording'];
  if (values.recording !== undefined) {
    const loaded = loadRecording(
      values.recording,
      // Its reads are mapped in the repository it was recorded in (a --shared clone reads this
      // pack through alternates), as the editor's Pack Map does; the drawn one is for a raw trace.
      { ...cacheOptions(values), defaultRepository: store.repository.gitDir, segment },
      progress,
    );
    reads = readsPerObject(loaded, pack.files.pack);
    if (reads === undefined)
      throw fail(
        'usage',
        values.recording,
        undefined,
        `the recording reads nothing from ${path.basename(pack.files.pack)}`,
      );
    let total = 0;
    for (const count of reads) total += count;
    recording = { file: path.resolve(values.recording), reads: total, distinctObjects: 0, litPixels: 0 };
  }
  const map = new PackMap(model, reads);
  const picture = map.render(order, attribute, { x: 0, y: 0, width: size, height: size });
  const legend = map.legend(attribute);
  if (recording) {
    recording.distinctObjects = map.readObjects;
    recording.litPixels = picture.litCells;
  }
  const caption = `${path.basename(pack.files.pack)}: ${formatCount(model.count)} objects, ${formatBytes(model.packSize)}; ${size}×${size} pixels of ${bytesPerPixelText(map.bytesPerCell(order))} each, along a Hilbert curve from the top left; colour: ${attribute}`;
  const scales: MapScales = {
    size,
    order,
    dataStart: map.dataStart,
    dataEnd: map.dataEnd,
    caption: `${caption}. Ruler: pack offsets along the curve, start to end.`,
    legend,
    ...(attribute === 'disk-size' ? { largestOnDisk: map.largestOnDisk } : {}),
    ...(recording ? { recording: recordingLine(recording) } : {}),
  };
  const bare = encodePng(size, size, picture.rgba);
  const bytes =
    values['no-scales'] === true
      ? format === 'png'
        ? bare
        : Buffer.from(bareSvg(bare, size))
      : format === 'png'
        ? pngOf(picture.rgba, scales)
        : Buffer.from(svgOf(bare, scales));
  makeDirectories(path.dirname(outputPath), 0o755);
  try {
    writeFileAtomically(outputPath, 0o644, (fd) => writeAll(fd, bytes), { replace: values.force === true });
  } catch (error) {
    // Made while the map was drawn: left as it is, as one there from the start would have been.
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') refuseExistingOutput(outputPath, false);
    throw error;
  }
  const document: MapDocument = {
    schema: 'packscope.map/1',
    pack: pack.files.pack,
    attribute,
    size,
    packBytes: model.packSize,
    bytesPerPixel: map.bytesPerCell(order),
    objects: model.count,
    legend: legend.filter((entry) => entry.label !== '').map((entry) => ({ label: entry.label, rgb: entry.colour })),
    ...(recording ? { recording } : {}),
    output: outputPath,
  };
  if (values.json) {
    writeJson(document);
    return 0;
  }
  const lines = [`${outputPath}: ${caption}`];
  for (const entry of document.legend) lines.push(`  ${rgbHex(entry.rgb)}  ${entry.label}`);
  if (recording)
    lines.push(
      `  reads: ${formatCount(recording.reads)} of ${formatCount(recording.distinctObjects)} distinct objects, over ${formatCount(recording.litPixels)} lit pixels`,
    );
  process.stdout.write(`${lines.join('\n')}\n`);
  return 0;
}

/**
 * An existing output: a symbolic link would be followed to a file somewhere else, a FIFO would
 * block the write for ever and a device would take the bytes, so anything but a regular file is
 * refused; a regular file is replaced only when asked (--force).
 */
function refuseExistingOutput(outputPath: string, force: boolean): void {
  const stat = fs.lstatSync(outputPath, { throwIfNoEntry: false });
  if (stat === undefined) return;
  if (stat.isSymbolicLink())
    throw fail('usage', outputPath, undefined, 'is a symbolic link; map writes only to a regular file or a new name');
  if (!stat.isFile())
    throw fail(
      'usage',
      outputPath,
      undefined,
      `is ${fileKind(stat)}, not a regular file; map writes only to a regular file or a new name`,
    );
  if (!force) throw fail('usage', outputPath, undefined, 'exists; --force replaces it');
}

function fileKind(stat: fs.Stats): string {
  if (stat.isDirectory()) return 'a directory';
  if (stat.isFIFO()) return 'a FIFO';
  if (stat.isSocket()) return 'a socket';
  if (stat.isCharacterDevice() || stat.isBlockDevice()) return 'a device';
  return 'a special file';
}

function choosePack(packs: PackLocation[], wanted: string | undefined, objectsDir: string): PackLocation {
  if (packs.length === 0)
    throw fail('usage', objectsDir, undefined, 'no packs to draw (the objects are loose; `git gc` packs them)');
  if (wanted !== undefined) {
    const matches = packs.filter(
      (p) => path.basename(p.files.pack) === wanted || path.basename(p.files.pack).includes(wanted),
    );
    if (matches.length !== 1)
      throw fail(
        'usage',
        undefined,
        undefined,
        `--pack ${wanted} matches ${matches.length} packs (of ${packs.map((p) => path.basename(p.files.pack)).join(', ')})`,
      );
    return matches[0]!;
  }
  return packs.reduce((largest, p) =>
    fs.statSync(p.files.pack).size > fs.statSync(largest.files.pack).size ? p : largest,
  );
}

/** Bytes a pixel covers: whole bytes from 10 up, one decimal below (a small pack at a large size). */
function bytesPerPixelText(bytes: number): string {
  return bytes >= 10 ? formatBytes(Math.round(bytes)) : `${bytes.toFixed(1)} bytes`;
}

function rgbHex(rgb: Rgb): string {
  return `#${rgb.map((c) => Math.round(c).toString(16).padStart(2, '0')).join('')}`;
}

function escapeXml(text: string): string {
  return text.replace(/[<>&"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** The map alone as an SVG: the PNG embedded, pixels kept sharp. */
function bareSvg(png: Buffer, size: number): string {
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${size}" height="${size}" viewBox="0 0 ${size} ${size}"><image x="0" y="0" width="${size}" height="${size}" style="image-rendering:pixelated" href="data:image/png;base64,${png.toString('base64')}"/></svg>\n`;
}

function recordingLine(recording: NonNullable<MapDocument['recording']>): string {
  return `recording ${path.basename(recording.file)}: ${formatCount(recording.reads)} reads of ${formatCount(recording.distinctObjects)} objects (lit: red to white, most read)`;
}

/** The PNG: the map with its scales drawn in (picture.ts), and their words as its description (tEXt). */
function pngOf(mapRgba: Uint8Array, scales: MapScales): Buffer {
  const picture = pictureWithScales(mapRgba, scales);
  const words = [
    scales.caption,
    ...scales.legend.filter((entry) => entry.label !== '').map((entry) => `${rgbHex(entry.colour)} ${entry.label}`),
    `offsets marked: ${rulerMarks(scales.dataStart, scales.dataEnd)
      .map((mark) => markLabel(mark))
      .join(', ')}`,
    ...(scales.recording === undefined ? [] : [scales.recording]),
  ];
  // tEXt is Latin-1: the caption's × is; anything beyond it becomes '?'.
  return encodePng(picture.width, picture.height, picture.rgba, {
    Title: 'PackScope pack map',
    Description: words.join('\n').replace(/[^\n\x20-\xff]/g, '?'),
  });
}

// Stays long: a linear script that writes the SVG's parts in order (map, marks, ruler, words, legend, size scale).
/** The picture (as an embedded PNG, pixels kept sharp) with its marks, ruler, caption, legend and size scale as text. */
function svgOf(png: Buffer, scales: MapScales): string {
  const { size, legend } = scales;
  const width = Math.max(size, 480);
  const rowHeight = 18;
  const rows = legend.filter((entry) => entry.label !== '' || legend.length <= 4);
  const rulerTop = size + 10;
  const captionY = rulerTop + 40;
  const legendTop = captionY + 16;
  const sizeTop = legendTop + rows.length * rowHeight + 4;
  const recordingY = sizeTop + (scales.largestOnDisk === undefined ? 0 : 40) + 12;
  const height = recordingY + (scales.recording === undefined ? 0 : rowHeight) + 8;
  const span = scales.dataEnd - scales.dataStart;
  const rx = (offset: number): number => 8 + ((offset - scales.dataStart) / span) * (width - 16);
  const parts = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="12">`,
    `<rect width="${width}" height="${height}" fill="#ffffff"/>`,
    `<image x="0" y="0" width="${size}" height="${size}" style="image-rendering:pixelated" href="data:image/png;base64,${png.toString('base64')}"/>`,
    '<g class="map-marks" fill="none">',
  ];
  for (const mark of marksOnMap(scales)) {
    const label = escapeXml(markLabel(mark));
    const anchor = mark.x > size - 90 ? 'end' : 'start';
    const tx = anchor === 'end' ? mark.x - 8 : mark.x + 8;
    parts.push(
      `<circle cx="${mark.x}" cy="${mark.y}" r="${mark.kind === 'tick' ? 3 : 4.5}" stroke="#ffffff" stroke-width="3"/><circle class="mark-${mark.kind}" data-offset="${mark.offset}" cx="${mark.x}" cy="${mark.y}" r="${mark.kind === 'tick' ? 3 : 4.5}" stroke="#202020" stroke-width="1.5"/>`,
      `<text x="${tx}" y="${Math.max(12, Math.min(size - 4, mark.y + 4))}" text-anchor="${anchor}" fill="#202020" stroke="#ffffff" stroke-width="3" paint-order="stroke">${label}</text>`,
    );
  }
  parts.push(
    '</g>',
    '<g class="ruler">',
    `<line x1="8" y1="${rulerTop}" x2="${width - 8}" y2="${rulerTop}" stroke="#202020"/>`,
  );
  for (const mark of rulerMarks(scales.dataStart, scales.dataEnd)) {
    const x = rx(mark.offset);
    const anchor = mark.kind === 'start' ? 'start' : mark.kind === 'end' ? 'end' : 'middle';
    parts.push(
      `<line x1="${x}" y1="${rulerTop - 4}" x2="${x}" y2="${rulerTop + 4}" stroke="#202020" stroke-width="${mark.kind === 'tick' ? 1 : 2}"/>`,
      `<text class="ruler-${mark.kind}" data-offset="${mark.offset}" x="${x}" y="${rulerTop + 18}" text-anchor="${anchor}">${escapeXml(markLabel(mark))}</text>`,
    );
  }
  parts.push(
    `<text x="8" y="${rulerTop + 32}" font-size="11" fill="#606060">pack offsets along the curve, from the top-left corner, start to end</text>`,
    '</g>',
    `<text x="8" y="${captionY}">${escapeXml(scales.caption)}</text>`,
  );
  rows.forEach((entry, i) => {
    const y = legendTop + 14 + i * rowHeight;
    parts.push(
      `<rect x="8" y="${y - 11}" width="12" height="12" fill="${rgbHex(entry.colour)}"/><text x="26" y="${y}">${escapeXml(entry.label)}</text>`,
    );
  });
  if (scales.largestOnDisk !== undefined) {
    const barWidth = Math.min(width - 16, 320);
    const ramp = sizeScaleRamp(scales.largestOnDisk, 64);
    parts.push('<g class="size-scale">');
    ramp.forEach((colour, i) =>
      parts.push(
        `<rect x="${8 + (i * barWidth) / ramp.length}" y="${sizeTop}" width="${barWidth / ramp.length + 0.5}" height="10" fill="${rgbHex(colour)}"/>`,
      ),
    );
    for (const stop of sizeScaleStops(scales.largestOnDisk)) {
      const x = 8 + stop.at * barWidth;
      const anchor = stop.at === 0 ? 'start' : stop.at === 1 ? 'end' : 'middle';
      parts.push(
        `<text class="size-stop" data-bytes="${stop.bytes}" x="${x}" y="${sizeTop + 24}" text-anchor="${anchor}">${escapeXml(formatBytes(stop.bytes, 'compact'))}</text>`,
      );
    }
    parts.push('</g>');
  }
  if (scales.recording !== undefined) parts.push(`<text x="8" y="${recordingY}">${escapeXml(scales.recording)}</text>`);
  parts.push('</svg>', '');
  return parts.join('\n');
}

export const mapCommand: Command = {
  name: 'map',
  summary: `${'map [options] -o FILE.png|.svg [path]'.padEnd(42)}a picture of a pack along its offsets`,
  help: mapHelp,
  run: (argv, context) => runMap(argv, context.progress),
};
