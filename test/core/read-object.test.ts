/**
 * Object content and delta listings against git and JGit: readObjectContent for every object of
 * an OFS-delta pack and of a REF-delta pack, byte for byte against `git cat-file --batch`; every
 * delta's listing replayed on its base and checked against the sizes git reports; renderDelta
 * against JGit's own BinaryDelta.format (Debian's libjgit-java, when installed); and damaged or
 * oversized packs, each ending in a PackFormatError that names the file and the entry's offset.
 */
import assert from 'node:assert/strict';
import { isUtf8 } from 'node:buffer';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { PackScopeError, type PackErrorCode } from '../../src/core/errors.ts';
import { buildPackModel, packFilesFor } from '../../src/core/model/build-pack-model.ts';
import type { PackModel } from '../../src/core/model/pack-model.ts';
import {
  formatDeltaInstructions,
  quoteLikeJGitPath,
  readDeltaData,
  readDeltaListing,
  readObjectContent,
  type DeltaListing,
} from '../../src/core/model/read-object.ts';
import { renderJGitDelta as renderDelta } from '../../src/presentation/delta-text.ts';
import { edgeCaseStream } from '../support/git-oracle.ts';
import { historyStream } from '../support/history.ts';
import { GitSandbox, packStems, tempDir } from '../support/git.ts';
import {
  assemble,
  copyInstruction,
  deltaPayload,
  insertInstruction,
  OBJ_BLOB,
  OBJ_OFS_DELTA,
  objectId,
  readPackSet,
  readPack,
  writePackSet,
  zlib,
  type PackEntry,
} from '../support/pack-surgery.ts';

const JGIT_JAR = process.env.PACKSCOPE_JGIT_JAR ?? '/usr/share/java/org.eclipse.jgit.jar';
const NO_LIMIT = { maxObjectBytes: 1 << 30 };

let root: string;
let sandbox: GitSandbox;
let repo: string;

interface GitObject {
  type: string;
  content: Buffer;
}

interface PackUnderTest {
  model: PackModel;
  /** `git cat-file --batch` of every object (the same objects in both packs). */
  git: Map<string, GitObject>;
  /** `%(deltabase)` of every object, as git reads this pack: the base's id, or the null id. */
  deltaBase: Map<string, string>;
}

let ofs: PackUnderTest;
let ref: PackUnderTest;

/** A few versions of a text file with non-ASCII lines, so that deltas insert UTF-8 (and split it). */
function unicodeStream(branch: string): Buffer {
  const lines = [
    'naïve café',
    '日本語のテキスト',
    'emoji 😀 here',
    'plain ascii line',
    'tab\tand "quotes" and \\ back',
    'Ünïcödé ßtraße',
  ];
  const chunks: Buffer[] = [];
  const emit = (text: string): void => void chunks.push(Buffer.from(text, 'utf8'));
  let text = lines.join('\n') + '\n';
  for (let version = 0; version < 12; version++) {
    const body = Buffer.from(text, 'utf8');
    emit(
      `commit refs/heads/${branch}\ncommitter C O Mitter <committer@example.com> ${1900000000 + version * 60} +0000\ndata 3\nv${version % 10}\n`,
    );
    emit(`M 100644 inline unicode.txt\ndata ${body.length}\n`);
    chunks.push(body);
    emit('\n');
    const at = (version * 7) % lines.length;
    text = text.replace(lines[at]!, `${lines[at]} — édition ${version} ✓`);
    lines[at] = `${lines[at]} — édition ${version} ✓`;
  }
  emit('done\n');
  return Buffer.concat(chunks);
}

/** `%(deltabase)` of every object in `objectsDir` (a repository's, or a directory holding one pack). */
function deltaBases(objectsDir: string): Map<string, string> {
  const list = sandbox.gitText(repo, ['cat-file', '--batch-all-objects', '--batch-check=%(objectname) %(deltabase)'], {
    env: { GIT_OBJECT_DIRECTORY: objectsDir },
  });
  return new Map(
    list
      .trim()
      .split('\n')
      .map((line) => line.split(' ') as [string, string]),
  );
}

/** `git cat-file --batch` for every object: type and exact content. */
function catFileAll(cwd: string, oids: string[]): Map<string, GitObject> {
  const output = sandbox.git(cwd, ['cat-file', '--batch'], { input: oids.join('\n') + '\n' });
  const objects = new Map<string, GitObject>();
  let at = 0;
  while (at < output.length) {
    const eol = output.indexOf(0x0a, at);
    const [oid, type, size] = output.toString('latin1', at, eol).split(' ');
    const start = eol + 1;
    const end = start + Number(size);
    objects.set(oid!, { type: type!, content: output.subarray(start, end) });
    at = end + 1;
  }
  assert.equal(objects.size, oids.length);
  return objects;
}

function onlyModel(objectsDir: string): PackModel {
  const stems = packStems(objectsDir);
  assert.equal(stems.length, 1, `one pack in ${objectsDir}`);
  return buildPackModel(packFilesFor(`${stems[0]}.pack`));
}

before(() => {
  root = tempDir(undefined, 'packscope-read-object-');
  sandbox = new GitSandbox(root);
  repo = sandbox.init('source');
  sandbox.fastImport(repo, historyStream({ commits: 160, seed: 29, binaryRate: 0.2 }));
  sandbox.fastImport(repo, edgeCaseStream('edge', { emptyTree: false }));
  sandbox.fastImport(repo, unicodeStream('unicode'));
  sandbox.git(repo, ['repack', '-q', '-adf', '--depth=50', '--window=50']);
  const objectsDir = path.join(repo, '.git', 'objects');
  const ofsBases = deltaBases(objectsDir);
  const git = catFileAll(repo, [...ofsBases.keys()]);
  ofs = { model: onlyModel(objectsDir), git, deltaBase: ofsBases };

  // No --delta-base-offset: every delta names its base by id (REF_DELTA), found by a fresh search.
  const refDir = path.join(root, 'ref-objects');
  fs.mkdirSync(path.join(refDir, 'pack'), { recursive: true });
  const objects = sandbox.git(repo, ['rev-list', '--objects', '--all']);
  sandbox.git(
    repo,
    [
      '-c',
      'pack.allowPackReuse=false',
      'pack-objects',
      '-q',
      '--no-reuse-delta',
      '--window=50',
      '--depth=50',
      path.join(refDir, 'pack', 'pack'),
    ],
    { input: objects },
  );
  ref = { model: onlyModel(refDir), git, deltaBase: deltaBases(refDir) };
});

after(() => fs.rmSync(root, { recursive: true, force: true }));

function openDescriptors(): number {
  return fs.readdirSync('/proc/self/fd').length;
}

/** Applies a listing the way its reader would: copies from the base, inserted bytes from the delta. */
function replay(listing: DeltaListing, base: Buffer, delta: Buffer): Buffer {
  const parts: Buffer[] = [];
  for (const instruction of listing.instructions) {
    if (instruction.op === 'copy')
      parts.push(base.subarray(instruction.baseOffset, instruction.baseOffset + instruction.length));
    else parts.push(delta.subarray(instruction.dataAt, instruction.dataAt + instruction.length));
  }
  return Buffer.concat(parts);
}

/** Undoes GIT_PATH quoting: the UTF-8 bytes JGit quoted (see quoteLikeJGitPath). */
function dequote(text: string): Buffer {
  if (!text.startsWith('"')) return Buffer.from(text, 'latin1');
  const body = text.slice(1, -1);
  const letters: Record<string, number> = { a: 7, b: 8, f: 12, n: 10, r: 13, t: 9, v: 11, '\\': 92, '"': 34 };
  const bytes: number[] = [];
  for (let i = 0; i < body.length; i++) {
    if (body[i] !== '\\') {
      bytes.push(body.charCodeAt(i));
    } else if (/[0-3]/.test(body[i + 1]!)) {
      bytes.push(parseInt(body.slice(i + 1, i + 4), 8));
      i += 3;
    } else {
      bytes.push(letters[body[i + 1]!]!);
      i += 1;
    }
  }
  return Buffer.from(bytes);
}

function assertPackError(error: unknown, code: PackErrorCode, file: string, offset: number | undefined): true {
  assert.ok(
    error instanceof PackScopeError,
    `expected a PackScopeError, got ${error instanceof Error ? error.stack : String(error)}`,
  );
  assert.equal(error.code, code, error.message);
  assert.equal(error.file, file, error.message);
  assert.equal(error.offset, offset, error.message);
  return true;
}

for (const which of ['OFS', 'REF'] as const) {
  describe(`${which}-delta pack written by git`, () => {
    const pack = (): PackUnderTest => (which === 'OFS' ? ofs : ref);

    test('has the deltas the test is about', () => {
      const { model } = pack();
      const counts = model.counts();
      if (which === 'OFS') assert.ok(counts.ofsDeltas > 300 && counts.refDeltas === 0, JSON.stringify(counts));
      else assert.ok(counts.refDeltas > 300 && counts.ofsDeltas === 0, JSON.stringify(counts));
      assert.ok(model.depthHistogram().length > 20, `deepest chain ${model.depthHistogram().length - 1}`);
      assert.equal(model.count, pack().git.size);
    });

    test('readObjectContent gives every object exactly as git cat-file --batch does', () => {
      const { model, git } = pack();
      const before = openDescriptors();
      let bytes = 0;
      for (let n = 0; n < model.count; n++) {
        const expected = git.get(model.oidHex(n))!;
        const content = readObjectContent(model, n, NO_LIMIT);
        assert.equal(model.typeName(n), expected.type, model.oidHex(n));
        assert.ok(
          content.equals(expected.content),
          `content of ${model.oidHex(n)} (${model.typeName(n)}, depth ${model.columns.depth[n]})`,
        );
        bytes += content.length;
      }
      assert.ok(bytes > 1_000_000, `${bytes} bytes compared`);
      assert.equal(openDescriptors(), before, 'every read closes the pack');
    });

    test('every delta listing replays to the object, and its sizes are the ones git reports', () => {
      const { model, git, deltaBase } = pack();
      let deltas = 0;
      for (let n = 0; n < model.count; n++) {
        if (!model.isDelta(n)) {
          assert.equal(deltaBase.get(model.oidHex(n)), model.hash.nullOidHex);
          continue;
        }
        deltas++;
        const delta = readDeltaData(model, n, NO_LIMIT);
        const listing = formatDeltaInstructions(delta, { maxInstructions: Infinity });
        const baseOid = deltaBase.get(model.oidHex(n))!;
        assert.equal(model.oidHex(model.columns.base[n]!), baseOid, `base of ${model.oidHex(n)}`);
        const expected = git.get(model.oidHex(n))!.content;
        const base = git.get(baseOid)!.content;
        assert.equal(listing.baseSize, base.length, `BASE= of ${model.oidHex(n)}`);
        assert.equal(listing.resultSize, expected.length, `RESULT= of ${model.oidHex(n)}`);
        assert.equal(listing.copiedBytes + listing.insertedBytes, listing.resultSize);
        assert.equal(listing.instructions.length, listing.totalInstructions);
        assert.ok(replay(listing, base, delta).equals(expected), `replay of ${model.oidHex(n)}`);

        const rendered = renderDelta(listing).split('\n');
        assert.equal(rendered[0], `DELTA( BASE=${base.length} RESULT=${expected.length} )`);
        assert.equal(
          rendered.length,
          listing.totalInstructions + 2,
          'one line per instruction, each ending in a newline',
        );
        listing.instructions.forEach((instruction, i) => {
          const line = rendered[i + 1]!;
          if (instruction.op === 'copy') {
            assert.equal(line, `  COPY  (${instruction.baseOffset}, ${instruction.length})`);
            return;
          }
          const match = /^ {2}INSERT\((.*)\)$/.exec(line);
          assert.ok(match, line);
          const inserted = delta.subarray(instruction.dataAt, instruction.dataAt + instruction.length);
          // JGit quotes UTF-8 text as is and anything else as if it were ISO-8859-1.
          const quotedBytes = isUtf8(inserted)
            ? inserted
            : Buffer.from(Buffer.from(inserted).toString('latin1'), 'utf8');
          assert.ok(dequote(match[1]!).equals(quotedBytes), `${line} quotes ${inserted.toString('hex')}`);
        });
      }
      assert.ok(deltas > 300, `${deltas} deltas listed`);
    });

    test('a REF delta whose base is not in the pack (a thin pack) is refused, naming its offset and base', () => {
      const { model, deltaBase } = pack();
      let n = 0;
      while (!model.isDelta(n)) n++;
      const saved = model.columns.base[n]!;
      model.columns.base[n] = -1;
      try {
        assert.throws(
          () => readObjectContent(model, n, NO_LIMIT),
          (error) =>
            assertPackError(error, 'missing-base', model.files.pack, model.columns.offset[n]) &&
            (which === 'OFS' || (error as Error).message.includes(deltaBase.get(model.oidHex(n))!)),
        );
      } finally {
        model.columns.base[n] = saved;
      }
    });
  });
}

describe('renderDelta against JGit', () => {
  const jgit = fs.existsSync(JGIT_JAR) && javaWorks();

  /** Crafted deltas whose inserts hold every byte value and the UTF-8 edge cases (valid and not). */
  function craftedDeltas(): Buffer[] {
    const inserts: Buffer[] = [];
    for (let c = 0; c < 256; c++) inserts.push(Buffer.from([c]));
    inserts.push(Buffer.from(Array.from({ length: 95 }, (_, i) => 0x20 + i)));
    for (const hex of [
      'c3a9',
      'e697a5e69cac',
      'f09f9880',
      'c3',
      'e697',
      'eda080',
      'c0af',
      'f4908080',
      'efbbbf41',
      'c3a9e9',
      '41c3a9',
    ])
      inserts.push(Buffer.from(hex, 'hex'));
    const deltas: Buffer[] = [];
    for (const insert of inserts) {
      const base = Buffer.from('base text');
      const body = Buffer.concat([copyInstruction(0, 4), insertInstruction(insert), copyInstruction(4, 5)]);
      deltas.push(deltaPayload(base.length, 9 + insert.length, body));
    }
    // Copies with offsets and lengths that need every argument byte, and the 0x10000 length.
    deltas.push(
      deltaPayload(
        0x3000000,
        0x10000 + 0xfffff,
        Buffer.concat([copyInstruction(0x2ffffff - 0x10000, 0x10000), copyInstruction(0x1020304, 0xfffff)]),
      ),
    );
    return deltas;
  }

  function jgitFormat(deltas: Buffer[]): string[] {
    const dir = tempDir(undefined, 'packscope-jgit-');
    try {
      // Our own ten-line driver: JGit's BinaryDelta.format on each length-prefixed delta.
      fs.writeFileSync(
        path.join(dir, 'FormatDeltas.java'),
        `import java.nio.file.*;
import org.eclipse.jgit.internal.storage.pack.BinaryDelta;
public class FormatDeltas {
  public static void main(String[] args) throws Exception {
    byte[] all = Files.readAllBytes(Paths.get(args[0]));
    StringBuilder out = new StringBuilder();
    for (int p = 0; p < all.length;) {
      int length = java.nio.ByteBuffer.wrap(all, p, 4).getInt();
      out.append(BinaryDelta.format(java.util.Arrays.copyOfRange(all, p + 4, p + 4 + length))).append('\\0');
      p += 4 + length;
    }
    System.out.print(out);
  }
}
`,
      );
      const input = Buffer.concat(
        deltas.flatMap((d) => [
          Buffer.from([d.length >>> 24, (d.length >>> 16) & 0xff, (d.length >>> 8) & 0xff, d.length & 0xff]),
          d,
        ]),
      );
      fs.writeFileSync(path.join(dir, 'deltas.bin'), input);
      const output = execFileSync(
        'java',
        ['-cp', JGIT_JAR, path.join(dir, 'FormatDeltas.java'), path.join(dir, 'deltas.bin')],
        { env: { ...process.env, LC_ALL: 'C' }, maxBuffer: 1 << 30 },
      ).toString('latin1');
      const formatted = output.split('\0');
      assert.equal(formatted.pop(), '');
      return formatted;
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }

  // The comparison needs JGit and java; a missing one is a failure here, not only a skip.
  test('JGit and java are installed', () => {
    assert.ok(jgit, `no JGit at ${JGIT_JAR}, or no working java: node scripts/ensure-test-tools.mjs installs them`);
  });

  test(
    'every delta of both packs, and crafted ones, print exactly as BinaryDelta.format prints them',
    { skip: jgit ? false : `no JGit at ${JGIT_JAR} (apt-get install libjgit-java)` },
    () => {
      const deltas: Buffer[] = craftedDeltas();
      for (const { model } of [ofs, ref])
        for (let n = 0; n < model.count; n++) if (model.isDelta(n)) deltas.push(readDeltaData(model, n, NO_LIMIT));
      const expected = jgitFormat(deltas);
      assert.equal(expected.length, deltas.length);
      let inserts = 0;
      deltas.forEach((delta, i) => {
        const listing = formatDeltaInstructions(delta, { maxInstructions: Infinity });
        inserts += listing.instructions.filter((instruction) => instruction.op === 'insert').length;
        assert.equal(renderDelta(listing), expected[i], `delta ${i}: ${delta.subarray(0, 64).toString('hex')}`);
      });
      assert.ok(inserts > 1000, `${inserts} inserts compared`);
    },
  );
});

function javaWorks(): boolean {
  try {
    execFileSync('java', ['-version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

describe('quoting and listing details', () => {
  test('INSERT text follows JGit GIT_PATH quoting, checked by hand', () => {
    const cases: [string, string][] = [
      ['68656c6c6f20776f726c64', 'hello world'],
      ['2b2c2d2e2f3a3b3d3f405f5e7c7e2425262a', '+,-./:;=?@_^|~$%&*'],
      ['610a', '"a\\n"'],
      ['0708090a0b0c0d5c22', '"\\a\\b\\t\\n\\v\\f\\r\\\\\\""'],
      ['2321272829', '"\\043\\041\\047\\050\\051"'],
      ['007f', '"\\000\\177"'],
      ['c3a9', '"\\303\\251"'],
      ['e9', '"\\303\\251"'],
      ['ff', '"\\303\\277"'],
      ['41c3', '"A\\303\\203"'],
      ['', '""'],
    ];
    for (const [hex, quoted] of cases) assert.equal(quoteLikeJGitPath(Buffer.from(hex, 'hex')), quoted, hex);
  });

  test('maxInstructions lists the first ones, counts all, and renderDelta says how many were left out', () => {
    const { model } = ofs;
    let n = 0;
    let full: DeltaListing | undefined;
    for (; n < model.count; n++) {
      if (!model.isDelta(n)) continue;
      full = readDeltaListing(model, n, { ...NO_LIMIT, maxInstructions: Infinity });
      if (full.totalInstructions >= 5) break;
    }
    assert.ok(full && full.totalInstructions >= 5);
    const cut = readDeltaListing(model, n, { ...NO_LIMIT, maxInstructions: 3 });
    assert.deepEqual(cut.instructions, full.instructions.slice(0, 3));
    assert.equal(cut.totalInstructions, full.totalInstructions);
    assert.equal(cut.copiedBytes, full.copiedBytes);
    assert.equal(cut.insertedBytes, full.insertedBytes);
    const lines = renderDelta(cut).trimEnd().split('\n');
    assert.equal(lines.length, 5);
    assert.equal(lines[4], `  ... ${full.totalInstructions - 3} more instructions`);
  });

  test('readDeltaData refuses an object stored whole', () => {
    const { model } = ofs;
    let n = 0;
    while (model.isDelta(n)) n++;
    assert.throws(
      () => readDeltaData(model, n, NO_LIMIT),
      (error) => assertPackError(error, 'usage', model.files.pack, model.columns.offset[n]),
    );
  });
});

describe('damaged, changed and oversized packs', () => {
  /** A private copy of the OFS pack, so that a test can cut or rewrite it. */
  function copyOfsPack(name: string): { stem: string; model: PackModel } {
    const source = ofs.model.files.pack.replace(/\.pack$/, '');
    const stem = path.join(root, 'copies', name);
    writePackSet(path.dirname(stem), path.basename(stem), readPackSet(source));
    return { stem, model: buildPackModel(packFilesFor(`${stem}.pack`)) };
  }

  /** A root object with delta children, and one of its descendants at depth 2 or more. */
  function rootWithDeepChild(model: PackModel): { root: number; child: number } {
    for (let n = 0; n < model.count; n++) {
      if (model.columns.depth[n]! >= 2 && model.typeName(n) === 'blob') return { root: model.rootOf(n), child: n };
    }
    throw new Error('no chain of depth 2');
  }

  test('a pack cut short after its model was built: truncated, at the entry asked for', () => {
    const { stem, model } = copyOfsPack('cut');
    const pack = `${stem}.pack`;
    fs.truncateSync(pack, Math.floor(model.packSize / 2));
    const before = openDescriptors();
    let late = 0;
    while (model.columns.offset[late]! < model.packSize / 2) late++;
    assert.throws(
      () => readObjectContent(model, late, NO_LIMIT),
      (error) => assertPackError(error, 'truncated', pack, model.columns.offset[late]),
    );
    assert.throws(
      () => readObjectContent(model, 0, NO_LIMIT),
      (error) => assertPackError(error, 'truncated', pack, model.columns.offset[0]),
    );
    fs.rmSync(pack);
    assert.throws(
      () => readObjectContent(model, 0, NO_LIMIT),
      (error) => assertPackError(error, 'io', pack, undefined),
    );
    assert.equal(openDescriptors(), before);
  });

  test('damaged zlib data of a chain root: bad-zlib at the root, for the root and for its deltas', () => {
    const source = readPackSet(ofs.model.files.pack.replace(/\.pack$/, ''));
    const parts = readPack(source.pack, source.idx);
    const { root: rootObject, child } = rootWithDeepChild(ofs.model);
    const rootOid = Buffer.from(ofs.model.oidHex(rootObject), 'hex');
    const entry = parts.entries.find((e) => e.oid.equals(rootOid))!;
    assert.ok(entry.data.length > 16);
    const middle = entry.data.length >> 1;
    for (let i = middle; i < middle + 4; i++) entry.data[i] = entry.data[i]! ^ 0x5a;
    const files = writePackSet(path.join(root, 'copies'), 'bad-zlib', assemble(parts));
    const model = buildPackModel(packFilesFor(files.pack));
    const damagedRoot = model.findHex(rootOid.toString('hex'));
    const deep = model.findHex(ofs.model.oidHex(child));
    const at = model.columns.offset[damagedRoot];
    assert.throws(
      () => readObjectContent(model, damagedRoot, NO_LIMIT),
      (error) => assertPackError(error, 'bad-zlib', files.pack, at),
    );
    assert.throws(
      () => readObjectContent(model, deep, NO_LIMIT),
      (error) => assertPackError(error, 'bad-zlib', files.pack, at),
    );
  });

  test('a zlib stream longer than its header declares: bad-zlib, never more bytes than declared', () => {
    const source = readPackSet(ofs.model.files.pack.replace(/\.pack$/, ''));
    const parts = readPack(source.pack, source.idx);
    let n = 0;
    while (ofs.model.isDelta(n) || ofs.model.typeName(n) !== 'blob' || ofs.model.columns.size.get(n) === 0) n++;
    const oid = ofs.model.oidHex(n);
    const entry = parts.entries.find((e) => e.oid.toString('hex') === oid)!;
    entry.data = zlib(Buffer.concat([ofs.git.get(oid)!.content, Buffer.from('one more line\n')]));
    const files = writePackSet(path.join(root, 'copies'), 'long-zlib', assemble(parts));
    const model = buildPackModel(packFilesFor(files.pack));
    const object = model.findHex(oid);
    assert.throws(
      () => readObjectContent(model, object, NO_LIMIT),
      (error) => assertPackError(error, 'bad-zlib', files.pack, model.columns.offset[object]),
    );
  });

  /** A blob of `baseBytes` and an OFS delta on it whose instructions are `body`. */
  function craftedPair(
    name: string,
    baseBytes: number,
    resultSize: number,
    body: Buffer,
    result: Buffer,
  ): { model: PackModel; headerOnly: PackModel; pack: string } {
    const base = Buffer.alloc(baseBytes, 'abcdefghij');
    const delta = deltaPayload(base.length, resultSize, body);
    const entries: PackEntry[] = [
      { oid: objectId(OBJ_BLOB, base), type: OBJ_BLOB, size: base.length, data: zlib(base) },
      { oid: objectId(OBJ_BLOB, result), type: OBJ_OFS_DELTA, size: delta.length, base: 0, data: zlib(delta) },
    ];
    const files = writePackSet(path.join(root, 'crafted'), name, assemble({ hash: 'sha1', version: 2, entries }));
    return {
      model: buildPackModel(packFilesFor(files.pack)),
      headerOnly: buildPackModel(packFilesFor(files.pack), { resultSizes: false }),
      pack: files.pack,
    };
  }

  test('sizes over the limit are refused before reading: the object, a base in its chain, a delta result', () => {
    // A 4000-byte base and a delta that keeps its first 10 bytes: the object is small, its base is not.
    const small = craftedPair('small-on-big', 4000, 10, copyInstruction(0, 10), Buffer.from('abcdefghij'));
    const [baseObject, deltaObject] = [small.model.columns.byOffset[0]!, small.model.columns.byOffset[1]!];
    assert.equal(readObjectContent(small.model, deltaObject, { maxObjectBytes: 4000 }).toString(), 'abcdefghij');
    assert.throws(
      () => readObjectContent(small.model, deltaObject, { maxObjectBytes: 100 }),
      (error) => assertPackError(error, 'too-large', small.pack, small.model.columns.offset[baseObject]),
    );
    assert.throws(
      () => readObjectContent(small.model, baseObject, { maxObjectBytes: 3999 }),
      (error) => assertPackError(error, 'too-large', small.pack, small.model.columns.offset[baseObject]),
    );
    assert.equal(
      readDeltaData(small.model, deltaObject, { maxObjectBytes: 100 }).length,
      small.model.columns.size.get(deltaObject),
    );

    // Ten copies of a 1000-byte base: a delta of a few dozen bytes declaring 10000.
    const copies = Buffer.concat(Array.from({ length: 10 }, () => copyInstruction(0, 1000)));
    const big = craftedPair('big-from-small', 1000, 10000, copies, Buffer.alloc(10000, 'abcdefghij'));
    const bigDelta = big.model.columns.byOffset[1]!;
    assert.equal(readObjectContent(big.model, bigDelta, { maxObjectBytes: 10000 }).length, 10000);
    assert.throws(
      () => readObjectContent(big.model, bigDelta, { maxObjectBytes: 5000 }),
      (error) => assertPackError(error, 'too-large', big.pack, big.model.columns.offset[bigDelta]),
    );
    // A header-only model does not know the result size: the delta's own header is checked instead.
    const headerOnlyDelta = big.headerOnly.objectAt(big.model.columns.offset[bigDelta]!);
    assert.equal(big.headerOnly.columns.resultSize.get(headerOnlyDelta), 0);
    assert.throws(
      () => readObjectContent(big.headerOnly, headerOnlyDelta, { maxObjectBytes: 5000 }),
      (error) => assertPackError(error, 'too-large', big.pack, big.model.columns.offset[bigDelta]),
    );
  });

  test('a delta that copies past its base: bad-delta at the delta, from the content and from the listing', () => {
    const broken = craftedPair('copy-past-base', 100, 20, Buffer.concat([copyInstruction(90, 20)]), Buffer.alloc(20));
    const delta = broken.model.columns.byOffset[1]!;
    const at = broken.model.columns.offset[delta];
    assert.throws(
      () => readObjectContent(broken.model, delta, NO_LIMIT),
      (error) => assertPackError(error, 'bad-delta', broken.pack, at),
    );
    assert.throws(
      () => readDeltaListing(broken.model, delta, { ...NO_LIMIT, maxInstructions: 10 }),
      (error) => assertPackError(error, 'bad-delta', broken.pack, at),
    );
  });
});
