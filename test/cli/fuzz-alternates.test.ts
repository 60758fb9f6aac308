/**
 * Fuzzing objects/info/alternates with fast-check: the repository's
 * alternates and those of the object directories it names are each absent, a regular file of
 * generated lines (paths of real object directories, relative, absolute or C-quoted, the repository
 * itself, missing ones, comments, blank and CRLF lines, NULs and junk bytes, very long lines), or a
 * FIFO, a link to /dev/zero or /dev/urandom, a directory, a dangling link, a link loop, a sparse
 * file of gigabytes. Each case runs `packscope stats` in a child process killed after a time bound,
 * so a hang fails the case instead of the suite: it must end in a model (exit 0 with the report)
 * or a one-line error naming a file of the case (exit 1), never an internal error.
 *
 * Reproduce a failure with the seed it prints: PACKSCOPE_FUZZ_SEED=<seed> (and
 * PACKSCOPE_FUZZ_ALTERNATES_RUNS=<n> to run more or fewer cases).
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { before, test } from 'node:test';
import fc from 'fast-check';
import { runCliBounded } from '../support/bounded-cli.ts';
import { GitSandbox, gitEnv, tempDir } from '../support/git.ts';
import { historyStream } from '../support/history.ts';

const SEED = Number(process.env.PACKSCOPE_FUZZ_SEED ?? 20240611);
const RUNS = Number(process.env.PACKSCOPE_FUZZ_ALTERNATES_RUNS ?? 40);
/** Per case: one CLI run over three tiny repositories; a FIFO waited on or /dev/zero read whole never ends. */
const CASE_TIME_LIMIT_MS = 15_000;
const DONORS = 2;

type Line =
  | { kind: 'donor'; donor: number; form: 'absolute' | 'relative' | 'quoted' }
  | { kind: 'self' }
  | { kind: 'missing' }
  | { kind: 'comment' }
  | { kind: 'blank' }
  | { kind: 'junk'; bytes: Uint8Array }
  | { kind: 'long'; length: number };

type AlternatesFile =
  | { kind: 'absent' }
  | { kind: 'regular'; lines: Line[]; crlf: boolean }
  | { kind: 'fifo' | 'dev-zero' | 'dev-urandom' | 'directory' | 'dangling-link' | 'link-loop' | 'sparse-huge' };

interface Case {
  /** The repository's own alternates, then each donor's. */
  files: AlternatesFile[];
}

const line: fc.Arbitrary<Line> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({
      kind: fc.constant('donor' as const),
      donor: fc.nat({ max: DONORS - 1 }),
      form: fc.constantFrom('absolute' as const, 'relative' as const, 'quoted' as const),
    }),
  },
  fc.record({ kind: fc.constant('self' as const) }),
  fc.record({ kind: fc.constant('missing' as const) }),
  fc.record({ kind: fc.constant('comment' as const) }),
  fc.record({ kind: fc.constant('blank' as const) }),
  fc.record({ kind: fc.constant('junk' as const), bytes: fc.uint8Array({ minLength: 1, maxLength: 64 }) }),
  fc.record({ kind: fc.constant('long' as const), length: fc.integer({ min: 4096, max: 200_000 }) }),
);

const alternatesFile: fc.Arbitrary<AlternatesFile> = fc.oneof(
  { weight: 3, arbitrary: fc.constant({ kind: 'absent' as const }) },
  {
    weight: 8,
    arbitrary: fc.record({
      kind: fc.constant('regular' as const),
      lines: fc.array(line, { maxLength: 8 }),
      crlf: fc.boolean(),
    }),
  },
  fc.record({
    kind: fc.constantFrom(
      'fifo' as const,
      'dev-zero' as const,
      'dev-urandom' as const,
      'directory' as const,
      'dangling-link' as const,
      'link-loop' as const,
      'sparse-huge' as const,
    ),
  }),
);

const caseArbitrary: fc.Arbitrary<Case> = fc.record({
  files: fc.array(alternatesFile, { minLength: DONORS + 1, maxLength: DONORS + 1 }),
});

let sandbox: GitSandbox;
/** Repositories copied into each case: the one `stats` reads, then the donors. */
let templates: string[];
let caseNumber = 0;
/** How the cases ended: a spread of both says the generator reaches past the first refusal. */
const outcomes = { models: 0, errors: 0 };

function cQuoted(text: string): string {
  return `"${text.replace(/[\\"]/g, (c) => `\\${c}`)}"`;
}

function lineBytes(entry: Line, objectsDir: string, donorObjects: string[]): Buffer {
  switch (entry.kind) {
    case 'donor': {
      const target = donorObjects[entry.donor]!;
      if (entry.form === 'relative') return Buffer.from(path.relative(objectsDir, target));
      return Buffer.from(entry.form === 'quoted' ? cQuoted(target) : target);
    }
    case 'self':
      return Buffer.from(objectsDir);
    case 'missing':
      return Buffer.from(path.join(objectsDir, '..', 'no-such-objects'));
    case 'comment':
      return Buffer.from('# an alternate once');
    case 'blank':
      return Buffer.from('   ');
    case 'junk':
      return Buffer.from(entry.bytes);
    case 'long':
      return Buffer.alloc(entry.length, 'x');
  }
}

function writeAlternates(file: string, spec: AlternatesFile, objectsDir: string, donorObjects: string[]): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  switch (spec.kind) {
    case 'absent':
      return;
    case 'regular': {
      const separator = Buffer.from(spec.crlf ? '\r\n' : '\n');
      fs.writeFileSync(
        file,
        Buffer.concat(spec.lines.flatMap((entry) => [lineBytes(entry, objectsDir, donorObjects), separator])),
      );
      return;
    }
    case 'fifo':
      execFileSync('mkfifo', [file]);
      return;
    case 'dev-zero':
      fs.symlinkSync('/dev/zero', file);
      return;
    case 'dev-urandom':
      fs.symlinkSync('/dev/urandom', file);
      return;
    case 'directory':
      fs.mkdirSync(file);
      return;
    case 'dangling-link':
      fs.symlinkSync(path.join(path.dirname(file), 'nowhere'), file);
      return;
    case 'link-loop':
      fs.symlinkSync(file, file);
      return;
    case 'sparse-huge':
      fs.writeFileSync(file, `${objectsDir}\n`);
      fs.truncateSync(file, 6 * 2 ** 30);
      return;
  }
}

async function checkCase(c: Case): Promise<void> {
  const dir = path.join(sandbox.root, 'cases', String(++caseNumber));
  const repos = templates.map((template, i) => {
    const copy = path.join(dir, i === 0 ? 'repo' : `donor-${i}`);
    fs.cpSync(template, copy, { recursive: true });
    return copy;
  });
  try {
    const objects = repos.map((repo) => path.join(repo, '.git', 'objects'));
    const donorObjects = objects.slice(1);
    const alternates = objects.map((objectsDir) => path.join(objectsDir, 'info', 'alternates'));
    c.files.forEach((spec, i) => writeAlternates(alternates[i]!, spec, objects[i]!, donorObjects));
    const run = await runCliBounded(['stats', '--no-cache', repos[0]!], {
      env: gitEnv(sandbox.home) as Record<string, string>,
      timeoutMs: CASE_TIME_LIMIT_MS,
    });
    const what = `case ${caseNumber} ${JSON.stringify(c, (_, v: unknown) => (v instanceof Uint8Array ? Buffer.from(v).toString('hex') : v))}`;
    assert.equal(run.timedOut, false, `${what}: stats did not end within ${CASE_TIME_LIMIT_MS} ms`);
    assert.doesNotMatch(run.stderr, /internal error|\n\s+at /, `${what}: ${run.stderr}`);
    if (run.status === 0) {
      assert.match(run.stdout, /\S/, `${what}: a report`);
      outcomes.models++;
      return;
    }
    assert.equal(run.status, 1, `${what}: exit status (stderr: ${run.stderr})`);
    assert.match(run.stderr, /^packscope: [^\n]+\n$/, `${what}: one line`);
    const named = run.stderr.slice('packscope: '.length);
    assert.ok(named.startsWith(`${dir}/`), `${what}: the error names a file of the case: ${run.stderr}`);
    outcomes.errors++;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

before(() => {
  sandbox = new GitSandbox(tempDir(undefined, 'packscope-fuzz-alternates-'));
  process.on('exit', () => fs.rmSync(sandbox.root, { recursive: true, force: true }));
  templates = Array.from({ length: DONORS + 1 }, (_, i) => {
    const repo = sandbox.init(`template-${i}`);
    sandbox.fastImport(repo, historyStream({ commits: 4, seed: 30 + i }));
    sandbox.git(repo, ['repack', '-adq']);
    return repo;
  });
});

test('alternates fuzzing: every case ends in a model or an error naming one of its files, never a hang', async (t) => {
  const started = performance.now();
  try {
    await fc.assert(fc.asyncProperty(caseArbitrary, checkCase), { seed: SEED, numRuns: RUNS });
  } finally {
    t.diagnostic(
      `${caseNumber} cases (seed ${SEED}): ${outcomes.models} models, ${outcomes.errors} errors, in ${((performance.now() - started) / 1000).toFixed(1)} s`,
    );
  }
  assert.ok(outcomes.models > 0 && outcomes.errors > 0, 'cases end both ways');
});
