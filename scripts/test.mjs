#!/usr/bin/env node
// `npm test`: the same steps as before (install, build, type-check, then every suite in order), but
// quiet. Each step's whole output goes to test-artifacts/test-logs/<step>.log; on success this prints
// one line per suite and a last line that totals every suite ("N passed, M failed"). On failure it
// prints the failing tests' names with their output, and where the full log is. Exit code 1 when
// any test or step failed.
//
//   node scripts/test.mjs                   everything
//   node scripts/test.mjs unit webview      only the named suites (setup steps always run; the
//                                           system packages installed are those the named suites use)
//
// Counts come from the runners themselves: node:test suites write TAP to a file
// (--test-reporter=tap) and, for the failure report, spec to another; the e2e runner prints
// "e2e: PASS|FAIL <name>" per test and "e2e: N passed, M failed" at the end. The unit suite, which
// runs for minutes, also prints a line per test file as it ends (scripts/test-file-reporter.mjs).
// This file uses only Node's own modules: it runs before node_modules may exist.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const logDir = path.join(root, 'test-artifacts', 'test-logs');
const tsc = path.join('node_modules', 'typescript', 'bin', 'tsc');
const testFiles = (dir) =>
  fs
    .readdirSync(path.join(root, dir))
    .filter((f) => f.endsWith('.test.ts'))
    .sort()
    .map((f) => `${dir}/${f}`);

/**
 * Steps before the suites: any failure ends the run (nothing after them can run without them).
 * `suites`: the names of the suites that will run; the test tools installed are theirs.
 */
const setupSteps = (suites) => [
  { name: 'ensure-deps', args: ['scripts/ensure-deps.mjs'] },
  { name: 'ensure-test-tools', args: ['scripts/ensure-test-tools.mjs', ...suites] },
  { name: 'build', args: ['scripts/build.mjs'] },
  { name: 'typecheck', args: [tsc, '--noEmit', '-p', '.'] },
  { name: 'typecheck-media', args: [tsc, '--noEmit', '-p', 'media'] },
  { name: 'lint', args: ['node_modules/eslint/bin/eslint.js', '.'] },
  { name: 'format-check', args: ['node_modules/prettier/bin/prettier.cjs', '--check', '.'] },
];

/**
 * Suites, in the order the old chain ran them. `nodeTest`: a node:test run whose TAP gives the
 * counts; `perFile`: a line per test file as it ends.
 */
const SUITES = [
  {
    name: 'unit',
    nodeTest: true,
    perFile: true,
    args: () => [
      '--import',
      'tsx',
      '--test',
      '--test-concurrency=2',
      ...testFiles('test/core'),
      ...testFiles('test/cli'),
      ...testFiles('test/server'),
      ...testFiles('test/presentation'),
      ...testFiles('test/common'),
      ...testFiles('test/extension-node'),
      ...testFiles('test/bench'),
      ...testFiles('test/repo'),
    ],
  },
  { name: 'webview', nodeTest: true, args: () => ['test/webview/run.mjs'] },
  { name: 'pack-map', nodeTest: true, args: () => ['test/webview/pack-map.mjs'] },
  { name: 'tables-links', nodeTest: true, args: () => ['test/webview/tables-links.mjs'] },
  { name: 'bytes-treemap', nodeTest: true, args: () => ['test/webview/bytes-treemap.mjs'] },
  { name: 'e2e', nodeTest: false, args: () => ['test/e2e/run.mjs'] },
];

const secs = (ms) => `${(ms / 1000).toFixed(1)} s`;
const rel = (file) => path.relative(process.cwd(), file) || file;

/**
 * Runs `node …args` with stdout and stderr into `log`; resolves to the exit code (or signal as 1).
 * With `onLine`, stdout also goes to it, a line at a time.
 */
function runNode(args, log, onLine) {
  return new Promise((resolve) => {
    const out = fs.openSync(log, 'w');
    const stdio = ['ignore', onLine ? 'pipe' : out, out];
    const child = spawn(process.execPath, args, { cwd: root, stdio, env: process.env });
    let partial = '';
    child.stdout?.setEncoding('utf8');
    child.stdout?.on('data', (chunk) => {
      fs.writeSync(out, chunk);
      const lines = (partial + chunk).split('\n');
      partial = lines.pop();
      for (const line of lines) onLine(line);
    });
    const forward = (signal) => child.kill(signal);
    process.on('SIGINT', forward);
    process.on('SIGTERM', forward);
    child.on('close', (code, signal) => {
      process.off('SIGINT', forward);
      process.off('SIGTERM', forward);
      if (partial) onLine(partial);
      fs.closeSync(out);
      resolve(code ?? (signal ? 1 : 0));
    });
    child.on('error', (e) => {
      fs.appendFileSync(log, `\n${e.stack}\n`);
    });
  });
}

/** The counts of a TAP stream: its closing "# pass"/"# fail"/"# cancelled" lines, and its failing leaves. */
function readTap(file) {
  const text = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
  const count = (key) => {
    const m = new RegExp(`^# ${key} (\\d+)$`, 'm').exec(text);
    return m ? Number(m[1]) : null;
  };
  const pass = count('pass');
  const fail = count('fail');
  const cancelled = count('cancelled') ?? 0;
  return { complete: pass !== null && fail !== null, pass: pass ?? 0, fail: (fail ?? 0) + cancelled };
}

/**
 * The failure part of a spec report: node's spec reporter ends with "✖ failing tests:" and, for each
 * failing test, its location, name and error. Falls back to the log's last lines when absent.
 */
function failureReport(specFile, logFile) {
  const spec = fs.existsSync(specFile) ? fs.readFileSync(specFile, 'utf8') : '';
  const at = spec.indexOf('✖ failing tests:');
  if (at >= 0) return spec.slice(at).trimEnd();
  return tail(logFile, 60);
}

function tail(file, lines) {
  const text = fs.existsSync(file) ? fs.readFileSync(file, 'utf8').trimEnd() : '';
  return text.split('\n').slice(-lines).join('\n');
}

const indent = (text) =>
  text
    .split('\n')
    .map((l) => `    ${l}`)
    .join('\n');

async function main() {
  const only = process.argv.slice(2);
  for (const n of only)
    if (!SUITES.some((s) => s.name === n))
      throw new Error(`no such suite "${n}" (have: ${SUITES.map((s) => s.name).join(', ')})`);
  fs.rmSync(logDir, { recursive: true, force: true });
  fs.mkdirSync(logDir, { recursive: true });
  const T0 = Date.now();
  const suites = SUITES.filter((s) => !only.length || only.includes(s.name));

  for (const step of setupSteps(only.length ? suites.map((s) => s.name) : [])) {
    const log = path.join(logDir, `${step.name}.log`);
    const t = Date.now();
    const code = await runNode(step.args, log);
    if (code !== 0) {
      console.log(`test: ${step.name} FAILED (exit ${code}, ${secs(Date.now() - t)}); no suite ran`);
      console.log(indent(tail(log, 80)));
      console.log(`    full log: ${rel(log)}`);
      console.log(`0 passed, 1 failed (${step.name})`);
      return 1;
    }
  }
  console.log(`test: setup done in ${secs(Date.now() - T0)} (install, build, type-check, lint)`);

  let passed = 0;
  let failed = 0;
  const failedSuites = [];
  for (const suite of suites) {
    const log = path.join(logDir, `${suite.name}.log`);
    const tap = path.join(logDir, `${suite.name}.tap`);
    const spec = path.join(logDir, `${suite.name}.spec.txt`);
    const args = suite.nodeTest
      ? [
          '--test-reporter=tap',
          `--test-reporter-destination=${tap}`,
          '--test-reporter=spec',
          `--test-reporter-destination=${spec}`,
          ...(suite.perFile
            ? ['--test-reporter=./scripts/test-file-reporter.mjs', '--test-reporter-destination=stdout']
            : []),
          ...suite.args(),
        ]
      : suite.args();
    const t = Date.now();
    // On a terminal, say which suite is running (the e2e suite takes minutes); a log file gets only the results.
    const running = `test: ${suite.name}…\r`;
    if (process.stdout.isTTY) process.stdout.write(running);
    // The per-file reporter's lines ("<file>: N passed, M failed (S s)"), as each file ends.
    const fileLine = (line) => {
      if (!line) return;
      if (process.stdout.isTTY) process.stdout.write('\x1b[2K');
      console.log(`test: ${suite.name}: ${line}`);
      if (process.stdout.isTTY) process.stdout.write(running);
    };
    const code = await runNode(args, log, suite.perFile ? fileLine : undefined);
    const ms = Date.now() - t;
    if (process.stdout.isTTY) process.stdout.write('\x1b[2K');
    let pass;
    let fail;
    let report = '';
    if (suite.nodeTest) {
      const counts = readTap(tap);
      ({ pass, fail } = counts);
      // A runner that dies before its tests end (an import error, a crash) counts as one failure.
      if (code !== 0 && fail === 0) fail = 1;
      if (fail)
        report =
          counts.complete && fs.existsSync(spec) && fs.readFileSync(spec, 'utf8').includes('✖ failing tests:')
            ? failureReport(spec, log)
            : `${suite.name} exited with ${code} before its tests ended:\n${tail(log, 60)}`;
    } else {
      const text = fs.existsSync(log) ? fs.readFileSync(log, 'utf8') : '';
      const m = /^e2e: (\d+) passed, (\d+) failed/m.exec(text);
      pass = m ? Number(m[1]) : 0;
      fail = m ? Number(m[2]) : 0;
      if (code !== 0 && fail === 0) fail = 1;
      // The e2e runner prints each failure as "e2e: FAIL name" followed by its indented error and log paths.
      if (fail) {
        const lines = text.split('\n');
        const blocks = [];
        for (let i = 0; i < lines.length; i++) {
          if (!/^e2e: FAIL /.test(lines[i])) continue;
          const block = [lines[i]];
          while (i + 1 < lines.length && /^ {4}/.test(lines[i + 1])) block.push(lines[++i]);
          blocks.push(block.join('\n'));
        }
        report = blocks.length ? blocks.join('\n') : `e2e exited with ${code}:\n${tail(log, 60)}`;
      }
    }
    passed += pass;
    failed += fail;
    console.log(`test: ${suite.name}: ${pass} passed, ${fail} failed (${secs(ms)})`);
    if (fail) {
      failedSuites.push(suite.name);
      console.log(indent(report));
      console.log(`    full log: ${rel(log)}`);
    }
  }
  const where = failedSuites.length ? ` (failing: ${failedSuites.join(', ')}; logs in ${rel(logDir)})` : '';
  console.log(`${passed} passed, ${failed} failed in ${secs(Date.now() - T0)}${where}`);
  return failed ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (e) => {
    console.error(`test: ${e?.stack || e}`);
    process.exit(2);
  },
);
