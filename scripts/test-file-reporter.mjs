// A node:test reporter that writes one line per finished test file: its name, its passed and failed
// tests and its seconds ("test/core/delta.test.ts: 12 passed, 0 failed (3.4 s)"). scripts/test.mjs
// passes it to the unit suite, so that a long run shows its progress; the counts follow node's own
// totals (the TAP "# pass"/"# fail" lines): suites, skipped and todo tests are not counted.
//
// Node runs the files in parallel but reports their results in order, one file at a time: a file's
// results arrive together, either as they happen (the file being reported) or all at once when the
// files before it are done. The file's own `test:complete` (nesting 0, named by its path) says it
// has ended and how long it took; it can arrive before its buffered results. So a file's line is
// written once it has ended and its results are over: at its end when it was being reported and
// passed, else when the next file's results begin, or when the run ends.
// Node's own modules only, like scripts/test.mjs.
import path from 'node:path';

/** Events that belong to the file being reported (others, e.g. a later file's own end, may come between). */
const REPORTED = new Set(['test:enqueue', 'test:dequeue', 'test:start', 'test:pass', 'test:fail', 'test:complete']);

export default async function* testFileLines(source) {
  const files = new Map();
  const entry = (file) => {
    let e = files.get(file);
    if (!e) files.set(file, (e = { pass: 0, fail: 0, ms: null, written: false }));
    return e;
  };
  const line = (file) => {
    const e = entry(file);
    e.written = true;
    const secs = e.ms === null ? '?' : (e.ms / 1000).toFixed(1);
    return `${path.relative(process.cwd(), file) || file}: ${e.pass} passed, ${e.fail} failed (${secs} s)\n`;
  };
  let reporting = null;
  for await (const { type, data } of source) {
    const file = data?.file;
    if (!file || !REPORTED.has(type)) continue;
    const ownEvent = data.nesting === 0 && data.name === file;
    if (ownEvent && type === 'test:complete') {
      entry(file).ms = data.details?.duration_ms ?? null;
      // A file that failed may still report itself as a whole (its process died): wait for that.
      if (reporting === file && data.details?.passed !== false) {
        reporting = null;
        yield line(file);
      }
      continue;
    }
    if (ownEvent && type !== 'test:pass' && type !== 'test:fail') continue;
    if (reporting !== file) {
      if (reporting !== null && !entry(reporting).written) yield line(reporting);
      reporting = file;
    }
    if (type !== 'test:pass' && type !== 'test:fail') continue;
    if (data.details?.type === 'suite' || data.skip !== undefined || data.todo !== undefined) continue;
    if (type === 'test:pass') entry(file).pass++;
    else entry(file).fail++;
    // A file that failed as a whole (it did not load, or its process died) reports itself last.
    if (ownEvent && entry(file).ms !== null) {
      reporting = null;
      yield line(file);
    }
  }
  for (const [file, e] of files) if (!e.written) yield line(file);
}
