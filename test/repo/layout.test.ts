// The dependency rule of docs/architecture.md, checked on every import of src/ and media/: a file's
// folder says what it may import, core's folders stand on floors that import only downwards, and
// Node-free files import no Node. A new arrow that runs the wrong way fails here with the file and
// the import, before it becomes a habit. The last test plants wrong imports in a copy of the tree
// and runs the same scanner and checker on it, so the check is known to fail when it should.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { builtinModules } from 'node:module';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import { WEBVIEW_PANELS } from '../../src/extension/webview-panels.ts';

const root = path.resolve(import.meta.dirname, '..', '..');

interface ImportEdge {
  file: string;
  specifier: string;
  /** Project-relative path of the imported file, `node:` for a Node built-in, or `pkg:<specifier>`. */
  target: string;
  typeOnly: boolean;
}

interface Tree {
  files: string[];
  edges: ImportEdge[];
}

// import … from, export … from, a bare import, import() (after `typeof`: a type), require().
const IMPORT =
  /(?:^|\n)[ \t]*(?:import|export)[ \t]+(type[ \t]+)?[^;'"]*?from[ \t]*['"]([^'"]+)['"]|(?:^|\n)[ \t]*import[ \t]+['"]([^'"]+)['"]|\b(typeof[ \t]+)?import\(\s*['"]([^'"]+)['"]\s*\)|\brequire\(\s*['"]([^'"]+)['"]\s*\)/g;

const NODE_BUILTINS = new Set(builtinModules);

function sourceFiles(base: string, folder: string): string[] {
  const out: string[] = [];
  for (const entry of fs.readdirSync(path.join(base, folder), { withFileTypes: true })) {
    const relative = `${folder}/${entry.name}`;
    if (entry.isDirectory()) out.push(...sourceFiles(base, relative));
    else if (entry.name.endsWith('.ts')) out.push(relative);
  }
  return out;
}

function importsOf(base: string, file: string): ImportEdge[] {
  const text = fs.readFileSync(path.join(base, file), 'utf8');
  const edges: ImportEdge[] = [];
  for (const match of text.matchAll(IMPORT)) {
    const specifier = (match[2] ?? match[3] ?? match[5] ?? match[6])!;
    let target: string;
    if (specifier.startsWith('.')) target = path.posix.normalize(path.posix.join(path.posix.dirname(file), specifier));
    else if (specifier.startsWith('node:') || NODE_BUILTINS.has(specifier)) target = 'node:';
    else target = `pkg:${specifier}`;
    edges.push({ file, specifier, target, typeOnly: match[1] !== undefined || match[4] !== undefined });
  }
  return edges;
}

/** Every source file of src/ and media/ under `base` (the project, or a copy of it) and its imports. */
function scan(base: string): Tree {
  const files = ['src', 'media'].flatMap((folder) => sourceFiles(base, folder));
  return { files, edges: files.flatMap((file) => importsOf(base, file)) };
}

/**
 * What the files of a folder may import, and what only with `import type`. An entry ending in `/`
 * is a folder (everything under it); any other entry is matched exactly: a file, `node:` (every
 * built-in), or `pkg:` and a package's specifier as the import spells it (`vscode` is not
 * `vscode-languageserver/node`).
 */
interface Rule {
  folder: string;
  may: string[];
  typesOnly?: string[];
}

/** Each webview panel's message protocol, from the table of panels (src/extension/webview-panels.ts). */
const WEBVIEW_PROTOCOLS: string[] = Object.values(WEBVIEW_PANELS).map((panel) => panel.protocol);

// Longest folder first: a file follows the most specific rule.
const RULES: Rule[] = [
  // Pure code every side imports, the webviews too: nothing outside itself, no Node, no packages.
  { folder: 'src/common/', may: ['src/common/'] },
  // The engine: Node built-ins and shared code; never the protocol, the server, the editor or the CLI.
  // Inside it, CORE_FLOORS below says which of its folders may import which.
  { folder: 'src/core/', may: ['src/core/', 'src/common/', 'node:'] },
  // The shapes of the documents that leave the engine: the protocol and the webviews take them as types.
  { folder: 'src/core/documents/', may: ['src/core/documents/', 'src/common/'] },
  // Method names, request types and message unions; result shapes come from core/documents, as types.
  {
    folder: 'src/protocol/',
    may: ['src/protocol/', 'src/common/', 'pkg:vscode-jsonrpc'],
    typesOnly: ['src/core/documents/', 'pkg:vscode-languageserver-protocol'],
  },
  // What the panels show, built from the protocol's types: no Node, no VS Code, no LSP at run time.
  {
    folder: 'src/presentation/',
    may: ['src/presentation/', 'src/common/', ...WEBVIEW_PROTOCOLS],
    typesOnly: ['src/protocol/server-protocol.ts'],
  },
  { folder: 'src/cli/', may: ['src/cli/', 'src/core/', 'src/common/', 'node:'] },
  {
    folder: 'src/server/',
    may: [
      'src/server/',
      'src/core/',
      'src/common/',
      'src/protocol/server-protocol.ts',
      'node:',
      'pkg:vscode-languageserver/node',
      'pkg:vscode-languageserver-textdocument',
      'pkg:vscode-jsonrpc',
    ],
    typesOnly: ['pkg:vscode-languageserver-protocol'],
  },
  // The editor side never parses bytes: no core, no server; the language client, not the server's library.
  {
    folder: 'src/extension/',
    may: [
      'src/extension/',
      'src/protocol/',
      'src/presentation/',
      'src/common/',
      'node:',
      'pkg:vscode',
      'pkg:vscode-languageclient/node',
    ],
    typesOnly: ['pkg:vscode-languageserver-protocol'],
  },
  {
    folder: 'media/',
    may: ['media/', 'src/common/', 'src/presentation/', ...WEBVIEW_PROTOCOLS, 'pkg:chart.js'],
    typesOnly: ['src/protocol/server-protocol.ts'],
  },
].sort((a, b) => b.folder.length - a.folder.length);

/**
 * Core's inner order, from the ground up: a folder (or a file directly in src/core) may import its
 * own files and those of lower floors, never a folder of its own floor or of a higher one. The
 * documents are at the bottom; the builders of documents (report) on top.
 */
const CORE_FLOORS: string[][] = [
  ['src/core/documents/', 'src/core/errors.ts', 'src/core/atomic-file.ts'],
  ['src/core/format/', 'src/core/git/', 'src/core/locality/', 'src/core/worker-error.ts'],
  ['src/core/model/'],
  ['src/core/sim/', 'src/core/verify/'],
  ['src/core/trace/'],
  ['src/core/cost/', 'src/core/map/', 'src/core/repack/'],
  ['src/core/report/'],
];

/** Files that run in the webviews or are shared with them: no `node:` import, no bare Node module name. */
const NODE_FREE = ['src/common/', 'src/core/documents/', 'src/protocol/', 'src/presentation/', 'media/'];

/** Folders of features: one may not import another's files (what they share sits in the folder above, or in media/common). */
const FEATURE_FOLDERS: { parent: string; shared: string[] }[] = [
  { parent: 'src/extension/', shared: [] },
  { parent: 'media/', shared: ['media/common/'] },
  { parent: 'src/server/handlers/', shared: [] },
  { parent: 'src/cli/commands/', shared: ['src/cli/commands/cache-options.ts'] },
];

const matches = (target: string, entries: readonly string[]): boolean =>
  entries.some((entry) => (entry.endsWith('/') ? target.startsWith(entry) : target === entry));

/** The floor of a core file, and the entry of CORE_FLOORS it falls under; undefined outside core or when no entry names it. */
function coreFloor(file: string): { floor: number; entry: string } | undefined {
  for (let floor = 0; floor < CORE_FLOORS.length; floor++)
    for (const entry of CORE_FLOORS[floor]!) if (matches(file, [entry])) return { floor, entry };
  return undefined;
}

/** Why an import breaks the rules: empty when it follows them. */
function whyWrong(edge: ImportEdge, rule: Rule): string[] {
  const reasons: string[] = [];
  if (!matches(edge.target, rule.may) && !(edge.typeOnly && matches(edge.target, rule.typesOnly ?? [])))
    reasons.push(
      matches(edge.target, rule.typesOnly ?? [])
        ? `allowed in ${rule.folder} as \`import type\` only`
        : `not among what ${rule.folder} may import`,
    );
  if (edge.target === 'node:' && matches(edge.file, NODE_FREE)) reasons.push('Node in a Node-free file');
  if (edge.file.startsWith('src/core/') && edge.target.startsWith('src/core/')) {
    const from = coreFloor(edge.file);
    const to = coreFloor(edge.target);
    if (from !== undefined && to !== undefined && from.entry !== to.entry && to.floor >= from.floor)
      reasons.push(
        `${from.entry} (core floor ${from.floor + 1}) may not import ${to.entry} (floor ${to.floor + 1}): core's floors import downwards only`,
      );
  }
  return reasons;
}

/** Every import that breaks the rules, as `<file> imports '<specifier>': <why>`; every file without a rule or a core floor. */
function violationsOf(tree: Tree): string[] {
  const violations: string[] = [];
  for (const file of tree.files) {
    if (!RULES.some((r) => file.startsWith(r.folder)))
      violations.push(`${file}: no rule for its folder (add one to this test and to docs/architecture.md)`);
    else if (file.startsWith('src/core/') && coreFloor(file) === undefined)
      violations.push(`${file}: no core floor for it (add it to CORE_FLOORS and to docs/architecture.md)`);
  }
  for (const edge of tree.edges) {
    const rule = RULES.find((r) => edge.file.startsWith(r.folder));
    if (rule === undefined) continue;
    const reasons = whyWrong(edge, rule);
    if (reasons.length > 0) violations.push(`${edge.file} imports '${edge.specifier}': ${reasons.join('; ')}`);
  }
  return violations;
}

function featureViolationsOf(tree: Tree): string[] {
  const violations: string[] = [];
  for (const { parent, shared } of FEATURE_FOLDERS) {
    const featureOf = (file: string): string | undefined => {
      if (!file.startsWith(parent)) return undefined;
      const rest = file.slice(parent.length);
      // A file directly in the parent is the folder's own (the composition root, a shared helper).
      return parent.endsWith('commands/') || parent.endsWith('handlers/')
        ? rest
        : rest.includes('/')
          ? rest.split('/')[0]
          : undefined;
    };
    for (const edge of tree.edges) {
      const from = featureOf(edge.file);
      const to = featureOf(edge.target);
      if (from === undefined || to === undefined || from === to || matches(edge.target, shared)) continue;
      // The command table (cli/commands/index.ts) lists every command: that is its job.
      if (edge.file === 'src/cli/commands/index.ts') continue;
      violations.push(`${edge.file} imports '${edge.specifier}' of another feature`);
    }
  }
  return violations;
}

const tree = scan(root);

test('every import of src/ and media/ follows the dependency rule of its folder and core’s floors', () => {
  assert.ok(tree.edges.length > 500, `the scan found ${tree.edges.length} imports; it is not reading the tree`);
  assert.deepEqual(violationsOf(tree), []);
});

test('no feature folder imports another feature’s files', () => {
  assert.deepEqual(featureViolationsOf(tree), []);
});

/** Circles of files among `files` (strongly connected components of two or more), every import counted, types too. */
function circlesOf(tree: Tree, files: string[]): string[][] {
  const inside = new Set(files);
  const next = new Map<string, string[]>(files.map((file) => [file, []]));
  for (const edge of tree.edges)
    if (inside.has(edge.file) && inside.has(edge.target)) next.get(edge.file)!.push(edge.target);
  // Tarjan's algorithm.
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const circles: string[][] = [];
  const visit = (file: string): void => {
    index.set(file, index.size);
    low.set(file, index.get(file)!);
    stack.push(file);
    for (const to of next.get(file)!) {
      if (!index.has(to)) {
        visit(to);
        low.set(file, Math.min(low.get(file)!, low.get(to)!));
      } else if (stack.includes(to)) low.set(file, Math.min(low.get(file)!, index.get(to)!));
    }
    if (low.get(file) !== index.get(file)) return;
    const circle: string[] = [];
    for (let top = stack.pop()!; ; top = stack.pop()!) {
      circle.push(top);
      if (top === file) break;
    }
    if (circle.length > 1) circles.push(circle.sort());
  };
  for (const file of files) if (!index.has(file)) visit(file);
  return circles;
}

test('no circle of files in src/core, type imports included', () => {
  const core = tree.files.filter((file) => file.startsWith('src/core/'));
  assert.deepEqual(circlesOf(tree, core), []);
});

test('every entry of CORE_FLOORS names a folder or file of the tree', () => {
  for (const entry of CORE_FLOORS.flat())
    assert.ok(fs.existsSync(path.join(root, entry)), `CORE_FLOORS names ${entry}, which is not in the tree`);
});

test('the checker fails on wrong imports planted in a copy of the tree, naming the file and the import', () => {
  const copy = fs.mkdtempSync(path.join(os.tmpdir(), 'packscope-layout-'));
  try {
    for (const folder of ['src', 'media'])
      fs.cpSync(path.join(root, folder), path.join(copy, folder), { recursive: true });
    assert.deepEqual(violationsOf(scan(copy)), [], 'the copy, before planting, is as clean as the tree');
    const wrong: { file: string; source: string; specifier: string; why: string }[] = [
      {
        // The language server's library in the editor: `vscode` allows `vscode`, not every name it begins.
        file: 'src/extension/planted.ts',
        source: "import 'vscode-languageserver/node';\n",
        specifier: 'vscode-languageserver/node',
        why: 'not among what src/extension/ may import',
      },
      {
        file: 'src/server/planted.ts',
        source:
          "import { TextDocumentSyncKind } from 'vscode-languageserver-protocol';\nexport const kind = TextDocumentSyncKind.None;\n",
        specifier: 'vscode-languageserver-protocol',
        why: 'allowed in src/server/ as `import type` only',
      },
      {
        file: 'src/core/model/planted.ts',
        source: "import { statsDocument } from '../report/stats.ts';\nexport const build = statsDocument;\n",
        specifier: '../report/stats.ts',
        why: 'src/core/model/ (core floor 3) may not import src/core/report/ (floor 7)',
      },
      {
        file: 'src/core/documents/planted-document.ts',
        source: "import * as fs from 'node:fs';\nexport const read = fs.readFileSync;\n",
        specifier: 'node:fs',
        why: 'Node in a Node-free file',
      },
      {
        // A bare Node module name is Node too.
        file: 'src/common/planted.ts',
        source: "import { join } from 'path';\nexport const joined = join('a', 'b');\n",
        specifier: 'path',
        why: 'Node in a Node-free file',
      },
    ];
    // And what the rules allow, planted beside them: these must pass (the last two form a circle of types, checked below).
    const right = [
      {
        file: 'src/server/planted-types.ts',
        source: "import type { Position } from 'vscode-languageserver-protocol';\nexport type P = Position;\n",
      },
      {
        file: 'src/core/sim/planted.ts',
        source: "import type { SimResult } from '../documents/simulation-documents.ts';\nexport type R = SimResult;\n",
      },
      {
        file: 'src/core/sim/planted-a.ts',
        source: "import type { B } from './planted-b.ts';\nexport type A = { b?: B };\n",
      },
      {
        file: 'src/core/sim/planted-b.ts',
        source: "import type { A } from './planted-a.ts';\nexport type B = { a?: A };\n",
      },
    ];
    for (const { file, source } of [...wrong, ...right]) fs.writeFileSync(path.join(copy, file), source);
    const found = violationsOf(scan(copy));
    for (const { file, specifier, why } of wrong) {
      const line = found.find((v) => v.startsWith(`${file} imports '${specifier}': `));
      assert.ok(line, `the planted import of '${specifier}' in ${file} was not reported:\n${found.join('\n')}`);
      assert.ok(line.includes(why), `${line}\n  does not say: ${why}`);
    }
    assert.equal(found.length, wrong.length, `only the planted wrong imports are reported:\n${found.join('\n')}`);
    const copied = scan(copy);
    const coreFiles = copied.files.filter((file) => file.startsWith('src/core/'));
    assert.deepEqual(circlesOf(copied, coreFiles), [['src/core/sim/planted-a.ts', 'src/core/sim/planted-b.ts']]);
  } finally {
    fs.rmSync(copy, { recursive: true, force: true });
  }
});
