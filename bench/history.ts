/**
 * The benchmark's history generator: a deterministic `git fast-import` stream written straight to
 * a file (hundreds of MB never sit in memory at once). Like test/support/history.ts — text files
 * edited a few lines at a time (long delta chains), renames, deletions, binary files patched in
 * place, annotated tags — but with a three-level directory tree so that every commit also writes
 * several trees, as real repositories do (git.git: about 40% trees), and with renames and
 * deletions limited to paths that exist in the parent commit.
 */
import * as fs from 'node:fs';
import { SeededRandom } from '../test/support/seeded-random.ts';

export interface BenchHistoryOptions {
  commits: number;
  seed: number;
  /** Top-level directories, and subdirectories in each: files live at top/sub/name. */
  dirs: number;
  subdirs: number;
  /** Text files in the first commit; the count then drifts around this. */
  files: number;
  /** Lines in a new text file. */
  linesPerFile: number;
  /** Files edited per commit (each edit touches one to three lines). */
  editsPerCommit: number;
  /** Per-commit probabilities. */
  addRate: number;
  renameRate: number;
  deleteRate: number;
  binaryRate: number;
  /** An annotated tag every this many commits. */
  tagEvery: number;
}

const WORDS = (
  'pack delta chain base cache inflate object tree blob commit offset window depth family limit read ' +
  'write index header size hash name path mode entry count table fanout trailer checksum stream ' +
  'buffer reader writer varint copy insert target source result option config remote branch merge'
).split(' ');

class Random extends SeededRandom {
  word(): string {
    return this.pick(WORDS);
  }
  line(): string {
    const n = 3 + this.int(9);
    let text = this.word();
    for (let i = 1; i < n; i++) text += ` ${this.word()}`;
    return text;
  }
}

/** Appends to a file through a 4 MiB buffer. */
class StreamFile {
  private readonly fd: number;
  private readonly buffer = Buffer.allocUnsafe(4 << 20);
  private used = 0;
  bytes = 0;
  constructor(file: string) {
    this.fd = fs.openSync(file, 'w');
  }
  text(text: string): void {
    this.raw(Buffer.from(text, 'utf8'));
  }
  raw(bytes: Buffer): void {
    if (this.used + bytes.length > this.buffer.length) this.flush();
    if (bytes.length > this.buffer.length) {
      fs.writeSync(this.fd, bytes);
    } else {
      bytes.copy(this.buffer, this.used);
      this.used += bytes.length;
    }
    this.bytes += bytes.length;
  }
  data(content: Buffer): void {
    this.text(`data ${content.length}\n`);
    this.raw(content);
    this.text('\n');
  }
  flush(): void {
    if (this.used > 0) fs.writeSync(this.fd, this.buffer, 0, this.used);
    this.used = 0;
  }
  close(): void {
    this.flush();
    fs.closeSync(this.fd);
  }
}

/** Writes the whole stream to `file`; returns its size in bytes. */
export function writeHistoryStream(file: string, options: BenchHistoryOptions): number {
  const random = new Random(options.seed);
  const out = new StreamFile(file);
  const texts = new Map<string, string[]>();
  const binaries = new Map<string, Buffer>();
  const dirNames: string[] = [];
  for (let d = 0; d < options.dirs; d++) {
    for (let s = 0; s < options.subdirs; s++)
      dirNames.push(`${WORDS[d % WORDS.length]}${d}/${WORDS[(d * 7 + s) % WORDS.length]}${s}`);
  }
  let serial = 0;
  const newTextFile = (): string => {
    const name = `${dirNames[random.int(dirNames.length)]}/${random.word()}-${serial++}.txt`;
    const lines: string[] = [];
    const n = Math.max(5, options.linesPerFile / 2 + random.int(options.linesPerFile));
    for (let i = 0; i < n; i++) lines.push(random.line());
    texts.set(name, lines);
    return name;
  };

  for (let c = 0; c < options.commits; c++) {
    const when = 1700000000 + c * 97;
    out.text(`commit refs/heads/main\nmark :${c + 1}\n`);
    out.text(
      `author A U Thor <author@example.com> ${when} +0000\ncommitter C O Mitter <committer@example.com> ${when} +0000\n`,
    );
    out.data(Buffer.from(`commit ${c}: ${random.line()}\n\n${random.line()}\n`));
    if (c > 0) out.text(`from :${c}\n`);

    /** Paths to write at the end of the commit, and paths that are not in the parent commit. */
    const changed = new Set<string>();
    const born = new Set<string>();
    if (c === 0) {
      for (let i = 0; i < options.files; i++) {
        const name = newTextFile();
        changed.add(name);
        born.add(name);
      }
    } else if (random.next() < options.addRate || texts.size < options.files / 2) {
      const name = newTextFile();
      changed.add(name);
      born.add(name);
    }
    const names = [...texts.keys()];
    for (let e = 0; e < options.editsPerCommit && c > 0; e++) {
      const name = names[random.int(names.length)]!;
      const lines = texts.get(name)!;
      const touched = 1 + random.int(3);
      for (let t = 0; t < touched; t++) {
        const at = random.int(lines.length + 1);
        const roll = random.next();
        if (roll < 0.5 || lines.length < 5) lines.splice(at, 0, random.line());
        else if (roll < 0.8 && at < lines.length) lines[at] = random.line();
        else lines.splice(Math.min(at, lines.length - 1), 1);
      }
      changed.add(name);
    }
    // Renames and deletions only of paths the parent commit has (fast-import needs them there).
    const old = names.filter((name) => !born.has(name));
    let renamed: string | undefined;
    if (old.length > 3 && random.next() < options.renameRate) {
      renamed = old[random.int(old.length)]!;
      const to = `${dirNames[random.int(dirNames.length)]}/${random.word()}-${serial++}.txt`;
      out.text(`R ${renamed} ${to}\n`);
      texts.set(to, texts.get(renamed)!);
      texts.delete(renamed);
      if (changed.delete(renamed)) changed.add(to);
    }
    if (texts.size > options.files * 1.5 || random.next() < options.deleteRate) {
      const candidates = old.filter((name) => name !== renamed);
      if (candidates.length > 3) {
        const victim = candidates[random.int(candidates.length)]!;
        out.text(`D ${victim}\n`);
        texts.delete(victim);
        changed.delete(victim);
      }
    }
    if (random.next() < options.binaryRate) {
      const existing = [...binaries.keys()];
      if (existing.length > 0 && random.next() < 0.7) {
        const name = existing[random.int(existing.length)]!;
        const content = Buffer.from(binaries.get(name)!);
        for (let i = 0; i < 8; i++) content[random.int(content.length)] = random.int(256);
        binaries.set(name, content);
        out.text(`M 100644 inline ${name}\n`);
        out.data(content);
      } else {
        const name = `assets/${random.word()}/blob-${serial++}.bin`;
        const content = random.bytes(2048 + random.int(8192));
        binaries.set(name, content);
        out.text(`M 100644 inline ${name}\n`);
        out.data(content);
      }
    }
    for (const name of changed) {
      out.text(`M 100644 inline ${name}\n`);
      out.data(Buffer.from(`${texts.get(name)!.join('\n')}\n`));
    }
    out.text('\n');
    if (options.tagEvery > 0 && c % options.tagEvery === options.tagEvery - 1) {
      out.text(`tag v${c + 1}\nfrom :${c + 1}\ntagger C O Mitter <committer@example.com> ${when} +0000\n`);
      out.data(Buffer.from(`release ${c + 1}\n`));
    }
  }
  out.text('done\n');
  out.close();
  return out.bytes;
}
