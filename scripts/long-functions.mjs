#!/usr/bin/env node
// Lists the functions of src/ longer than a bound (80 lines unless given), as `file:line name
// length`, and whether each says why it stays long: a `// Stays long: …` comment in the comments
// directly above it. A reader can hold a function of a screen or two; a longer one is either split
// into named steps or carries that sentence. test/repo/long-functions.test.ts runs the same scan.
//
//   node scripts/long-functions.mjs [--max N] [--unexplained] [folder…]   (default: src)
//
// Exit code 1 when --unexplained is given and some long function has no such comment.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

export const MAX_FUNCTION_LINES = 80;
export const WHY_MARKER = 'Stays long:';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** The TypeScript files under `folder` (relative to the repository, or absolute), as the scan names them. */
function sourceFiles(folder) {
  const out = [];
  for (const entry of fs.readdirSync(path.resolve(root, folder), { withFileTypes: true })) {
    const relative = `${folder}/${entry.name}`;
    if (entry.isDirectory()) out.push(...sourceFiles(relative));
    else if (/\.(ts|mts|cts)$/.test(entry.name) && !entry.name.endsWith('.d.ts')) out.push(relative);
  }
  return out.sort();
}

/** The node whose leading comments belong to `fn`: its declaration statement, property or member. */
function anchorOf(fn) {
  let node = fn;
  while (
    ts.isParenthesizedExpression(node.parent) ||
    ts.isAsExpression(node.parent) ||
    ts.isSatisfiesExpression(node.parent)
  )
    node = node.parent;
  const parent = node.parent;
  if (ts.isVariableDeclaration(parent) && ts.isVariableDeclarationList(parent.parent))
    return ts.isVariableStatement(parent.parent.parent) ? parent.parent.parent : parent;
  if (ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent) || ts.isExportAssignment(parent))
    return parent;
  if (ts.isFunctionDeclaration(fn) || ts.isMethodDeclaration(fn) || ts.isConstructorDeclaration(fn)) return fn;
  if (ts.isGetAccessorDeclaration(fn) || ts.isSetAccessorDeclaration(fn)) return fn;
  // A callback passed inline: the statement it is part of.
  let statement = node;
  while (statement.parent && !ts.isBlock(statement.parent) && !ts.isSourceFile(statement.parent))
    statement = statement.parent;
  return statement;
}

function nameOf(fn, anchor) {
  if (fn.name && (ts.isIdentifier(fn.name) || ts.isPrivateIdentifier(fn.name))) return fn.name.text;
  if (ts.isConstructorDeclaration(fn)) return 'constructor';
  const parent = fn.parent;
  if (
    (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent)) &&
    ts.isIdentifier(parent.name)
  )
    return parent.name.text;
  if (ts.isVariableStatement(anchor)) {
    const declaration = anchor.declarationList.declarations[0];
    if (declaration && ts.isIdentifier(declaration.name)) return `(callback in ${declaration.name.text})`;
  }
  return '(callback)';
}

/** The comments directly above `anchor`: the run of leading comments with no blank line before it. */
function commentsAbove(text, sourceFile, anchor) {
  const ranges = ts.getLeadingCommentRanges(text, anchor.getFullStart()) ?? [];
  const lineOf = (pos) => sourceFile.getLineAndCharacterOfPosition(pos).line;
  const kept = [];
  let nextLine = lineOf(anchor.getStart(sourceFile));
  for (let i = ranges.length - 1; i >= 0; i--) {
    const range = ranges[i];
    if (lineOf(range.end) < nextLine - 1) break;
    kept.unshift(text.slice(range.pos, range.end));
    nextLine = lineOf(range.pos);
  }
  return kept.join('\n');
}

/** Every function of `file` longer than `max` lines (signature to closing brace). */
export function longFunctionsIn(file, max = MAX_FUNCTION_LINES) {
  const text = fs.readFileSync(path.resolve(root, file), 'utf8');
  const sourceFile = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found = [];
  const visit = (node) => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body) {
      const start = sourceFile.getLineAndCharacterOfPosition(node.getStart(sourceFile)).line;
      const end = sourceFile.getLineAndCharacterOfPosition(node.getEnd()).line;
      const lines = end - start + 1;
      if (lines > max) {
        const anchor = anchorOf(node);
        found.push({
          file,
          line: start + 1,
          name: nameOf(node, anchor),
          lines,
          explained: commentsAbove(text, sourceFile, anchor).includes(WHY_MARKER),
        });
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(sourceFile);
  return found;
}

export function longFunctions(folders = ['src'], max = MAX_FUNCTION_LINES) {
  return folders.flatMap((folder) => sourceFiles(folder)).flatMap((file) => longFunctionsIn(file, max));
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  let max = MAX_FUNCTION_LINES;
  let unexplainedOnly = false;
  const folders = [];
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '--max') max = Number(args[++i]);
    else if (args[i] === '--unexplained') unexplainedOnly = true;
    else folders.push(args[i]);
  }
  const found = longFunctions(folders.length > 0 ? folders : ['src'], max).filter(
    (f) => !unexplainedOnly || !f.explained,
  );
  for (const f of found) console.log(`${f.file}:${f.line} ${f.name} ${f.lines}${f.explained ? ' (says why)' : ''}`);
  if (unexplainedOnly && found.length > 0) process.exitCode = 1;
}
