/**
 * Builds git from source for the benches that compare PackScope with a git other than the
 * system's (the exactness bench's newer git; the policies bench's patched builds): a tag of the
 * git/git repository brought with `fetch` (read with `git archive`, never written to), with
 * optional patches applied in order, installed under `.bench/git/<tag>[+<patches' hash>]/` and
 * reused while that directory's stamp names the same tag and patch contents.
 *
 *   node --import tsx bench/build-git.ts --source /work/.mirror/git+git/repo --tag v2.55.0 [--patch FILE …] [--cflags '…']
 *
 * Prints the install directory; its bin/git is the build. The build leaves out what no bench
 * reads through (curl, gettext, Tcl/Tk, Perl, Python, expat, OpenSSL: NO_* make variables), and
 * links the system zlib, whose inflateInit_ the inflate counter (test/support/inflate-counter.ts)
 * counts. Old trees need flags today's compilers otherwise refuse: `--cflags` adds to git's own.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { benchDir } from './generate.ts';

export interface GitBuildRequest {
  /** A git repository holding git's history (read only). */
  source: string;
  tag: string;
  /** Patch files (`git format-patch` output or plain diffs), applied in order. */
  patches?: readonly string[];
  /** Added to git's default CFLAGS (old trees on new compilers). */
  extraCflags?: string;
  log?: (line: string) => void;
}

const MAKE_FLAGS = [
  'NO_CURL=1',
  'NO_GETTEXT=1',
  'NO_TCLTK=1',
  'NO_PERL=1',
  'NO_PYTHON=1',
  'NO_EXPAT=1',
  'NO_OPENSSL=1',
  'NO_INSTALL_HARDLINKS=1',
];

/** Where a build of this tag and these patches is (or will be) installed. */
export function gitBuildDirectory(request: GitBuildRequest): string {
  const stamp = buildStamp(request);
  const suffix = request.patches?.length || request.extraCflags ? `+${stamp.hash.slice(0, 12)}` : '';
  return path.join(benchDir, 'git', `${request.tag}${suffix}`);
}

function buildStamp(request: GitBuildRequest): { text: string; hash: string } {
  const hash = createHash('sha256').update(`tag ${request.tag}\ncflags ${request.extraCflags ?? ''}\n`);
  for (const patch of request.patches ?? [])
    hash.update(`patch ${path.basename(patch)}\n`).update(fs.readFileSync(patch));
  const digest = hash.digest('hex');
  return { text: `${request.tag} ${digest}\n`, hash: digest };
}

function run(command: string, args: string[], cwd: string, what: string): void {
  const result = spawnSync(command, args, { cwd, encoding: 'utf8', maxBuffer: 1 << 28 });
  if (result.status !== 0)
    throw new Error(`${what}: ${command} ${args.join(' ')} exited ${result.status}\n${result.stderr.slice(-4000)}`);
}

/**
 * The tag built once, unpatched, kept with its object files under `.bench/git/<tag>[+cflags].tree/`:
 * a patched build copies it (mtimes kept), applies its patches and runs make install, so only the
 * patched files and what depends on the install prefix are compiled again (a minute, not five).
 */
export function builtTree(request: GitBuildRequest, log: (line: string) => void, jobs: string): string {
  const stamp = buildStamp({ ...request, patches: [] });
  const base = gitBuildDirectory({ ...request, patches: [] });
  const tree = `${base}.tree`;
  const stampFile = path.join(tree, 'packscope-tree-stamp');
  if (fs.existsSync(stampFile) && fs.readFileSync(stampFile, 'utf8') === stamp.text) return tree;
  fs.rmSync(tree, { recursive: true, force: true });
  fs.mkdirSync(tree, { recursive: true });
  log(`build-git: extracting ${request.tag} from ${request.source} into ${tree}`);
  const archive = `${tree}.tar`;
  run('git', ['--git-dir', request.source, 'archive', '--format=tar', '-o', archive, request.tag], tree, 'archive');
  run('tar', ['-xf', archive, '-C', tree], tree, 'extract');
  fs.rmSync(archive);
  log(`build-git: make -j${jobs} all in ${tree} (minutes, once per tag)`);
  run('make', [`-j${jobs}`, ...MAKE_FLAGS, ...cflagsOf(request), 'all'], tree, 'make');
  fs.writeFileSync(stampFile, stamp.text);
  return tree;
}

const cflagsOf = (request: GitBuildRequest): string[] =>
  request.extraCflags ? [`CFLAGS=-g -O2 -Wall ${request.extraCflags}`] : [];

/** Builds (or finds) the requested git; returns its install directory (bin/git inside). */
export function buildGit(request: GitBuildRequest): string {
  const log = request.log ?? ((line: string) => void process.stderr.write(`${line}\n`));
  const installDir = gitBuildDirectory(request);
  const stamp = buildStamp(request);
  const stampFile = path.join(installDir, 'packscope-build-stamp');
  if (fs.existsSync(stampFile) && fs.readFileSync(stampFile, 'utf8') === stamp.text) return installDir;

  const jobs = String(Math.max(1, os.availableParallelism()));
  const base = builtTree(request, log, jobs);
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'packscope-git-build-'));
  try {
    const tree = path.join(work, 'src');
    run('cp', ['-a', base, tree], work, 'copy the built tree');
    for (const patch of request.patches ?? []) {
      log(`build-git: applying ${path.basename(patch)}`);
      run('git', ['apply', '--whitespace=nowarn', path.resolve(patch)], tree, `patch ${patch}`);
    }
    fs.rmSync(installDir, { recursive: true, force: true });
    log(`build-git: make -j${jobs} install into ${installDir}`);
    run('make', [`-j${jobs}`, `prefix=${installDir}`, ...MAKE_FLAGS, ...cflagsOf(request), 'install'], tree, 'make');
    fs.writeFileSync(stampFile, stamp.text);
    return installDir;
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({
    options: {
      source: { type: 'string' },
      tag: { type: 'string' },
      patch: { type: 'string', multiple: true },
      cflags: { type: 'string' },
    },
  });
  if (!values.source || !values.tag) throw new Error('--source REPO and --tag TAG are required');
  const dir = buildGit({
    source: path.resolve(values.source),
    tag: values.tag,
    patches: values.patch ?? [],
    ...(values.cflags ? { extraCflags: values.cflags } : {}),
  });
  process.stdout.write(`${dir}\n`);
}
