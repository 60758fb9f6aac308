// The dependency rule of docs/architecture.md, checked on every import of src/ and media/: a file's
// folder says what it may import. A new arrow that runs the wrong way fails here with the file and
// the import, before it becomes a habit.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';

const root = path.resolve(import.meta.dirname, '..', '..');

interface ImportEdge {
  file: string;
  specifier: string;
  /** Project-relative path of the imported file, or `node:…` / `pkg:<name>`. */
  target: string;
  typeOnly: boolean;
}

const IMPORT =
  /(?:^|\n)[ \t]*(?:import|export)[ \t]+(type[ \t]+)?[^;'"]*?from[ \t]*['"]([^'"]+)['"]|(?:^|\n)[ \t]*import[ \t]+['"]([^'"]+)['"]|\bimport\(\s*['"]([^'"]+)['"]\s*\)|\brequire\(\s*['"]([^'"]+)['"]\s*\)/g;

function sourceFiles(folder: string): string[] {
  const out: string[] = [];
  for (const entry of fs.readdirSync(path.join(root, folder), { withFileTypes: true })) {
    const relative = `${folder}/${entry.name}`;
    if (entry.isDirectory()) out.push(...sourceFiles(relative));
    else if (entry.name.endsWith('.ts')) out.push(relative);
  }
  return out;
}

function importsOf(file: string): ImportEdge[] {
  const text = fs.readFileSync(path.join(root, file), 'utf8');
  const edges: ImportEdge[] = [];
  for (const match of text.matchAll(IMPORT)) {
    const specifier = (match[2] ?? match[3] ?? match[4] ?? match[5])!;
    let target: string;
    if (specifier.startsWith('.')) target = path.posix.normalize(path.posix.join(path.posix.dirname(file), specifier));
    else if (specifier.startsWith('node:')) target = 'node:';
    else
      target = `pkg:${specifier.startsWith('@') ? specifier.split('/').slice(0, 2).join('/') : specifier.split('/')[0]}`;
    edges.push({ file, specifier, target, typeOnly: match[1] !== undefined });
  }
  return edges;
}

/** What the files of a folder may import: target prefixes; those under `typesOnly` only with `import type`. */
interface Rule {
  folder: string;
  may: string[];
  typesOnly?: string[];
}

const WEBVIEW_PROTOCOLS = [
  'src/protocol/cache-lab-protocol.ts',
  'src/protocol/repack-preview-protocol.ts',
  'src/protocol/pack-map-protocol.ts',
];

// Longest folder first: a file follows the most specific rule.
const RULES: Rule[] = [
  // Pure code every side imports, the webviews too: nothing outside itself, no Node, no packages.
  { folder: 'src/common/', may: ['src/common/'] },
  // The engine: Node built-ins and shared code; never the protocol, the server, the editor or the CLI.
  { folder: 'src/core/', may: ['src/core/', 'src/common/', 'node:'] },
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
      'pkg:vscode-languageserver',
      'pkg:vscode-languageserver-textdocument',
      'pkg:vscode-jsonrpc',
    ],
    typesOnly: ['pkg:vscode-languageserver-protocol'],
  },
  // The editor side never parses bytes: no core, no server.
  {
    folder: 'src/extension/',
    may: [
      'src/extension/',
      'src/protocol/',
      'src/presentation/',
      'src/common/',
      'node:',
      'pkg:vscode',
      'pkg:vscode-languageclient',
      'pkg:vscode-jsonrpc',
    ],
    typesOnly: ['pkg:vscode-languageserver-protocol'],
  },
  {
    folder: 'media/',
    may: ['media/', 'src/common/', 'src/presentation/', ...WEBVIEW_PROTOCOLS, 'pkg:chart.js'],
    typesOnly: ['src/protocol/server-protocol.ts'],
  },
].sort((a, b) => b.folder.length - a.folder.length);

/** Folders of features: one may not import another's files (what they share sits in the folder above, or in media/common). */
const FEATURE_FOLDERS: { parent: string; shared: string[] }[] = [
  { parent: 'src/extension/', shared: [] },
  { parent: 'media/', shared: ['media/common/'] },
  { parent: 'src/server/handlers/', shared: [] },
  { parent: 'src/cli/commands/', shared: ['src/cli/commands/cache-options.ts'] },
];

const startsWithAny = (target: string, prefixes: string[]): boolean =>
  prefixes.some((prefix) => target === prefix || target.startsWith(prefix));

const edges = ['src', 'media'].flatMap(sourceFiles).flatMap(importsOf);

test('every import of src/ and media/ follows the dependency rule of its folder', () => {
  assert.ok(edges.length > 500, `the scan found ${edges.length} imports; it is not reading the tree`);
  const violations: string[] = [];
  for (const edge of edges) {
    const rule = RULES.find((r) => edge.file.startsWith(r.folder));
    assert.ok(rule, `${edge.file}: no rule for its folder (add one to this test and to docs/architecture.md)`);
    if (startsWithAny(edge.target, rule.may)) continue;
    if (edge.typeOnly && startsWithAny(edge.target, rule.typesOnly ?? [])) continue;
    const asType = startsWithAny(edge.target, rule.typesOnly ?? []) ? ' (allowed as `import type` only)' : '';
    violations.push(`${edge.file} imports '${edge.specifier}'${asType}`);
  }
  assert.deepEqual(violations, []);
});

test('no feature folder imports another feature’s files', () => {
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
    for (const edge of edges) {
      const from = featureOf(edge.file);
      const to = featureOf(edge.target);
      if (from === undefined || to === undefined || from === to || startsWithAny(edge.target, shared)) continue;
      // The command table (cli/commands/index.ts) lists every command: that is its job.
      if (edge.file === 'src/cli/commands/index.ts') continue;
      violations.push(`${edge.file} imports '${edge.specifier}' of another feature`);
    }
  }
  assert.deepEqual(violations, []);
});

test('the rule itself catches a wrong arrow', () => {
  // A core file that imported the protocol would be reported: the check above can fail.
  const rule = RULES.find((r) => 'src/core/sim/x.ts'.startsWith(r.folder))!;
  assert.equal(startsWithAny('src/protocol/server-protocol.ts', rule.may), false);
  const media = RULES.find((r) => 'media/cache-lab/main.ts'.startsWith(r.folder))!;
  assert.equal(startsWithAny('src/protocol/server-protocol.ts', media.may), false);
  assert.equal(startsWithAny('src/protocol/server-protocol.ts', media.typesOnly ?? []), true);
});
