import { execFileSync, spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { TestContext } from 'node:test';

export const projectRoot = path.resolve(__dirname, '..', '..');
export const cliPath = path.join(projectRoot, 'dist', 'cli.js');

/** An isolated environment for git: no user or system config, fixed identity and dates. */
export function gitEnv(home: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) if (!key.startsWith('GIT_')) env[key] = value;
  return {
    ...env,
    HOME: home,
    XDG_CONFIG_HOME: path.join(home, '.config'),
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_AUTHOR_NAME: 'A U Thor',
    GIT_AUTHOR_EMAIL: 'author@example.com',
    GIT_COMMITTER_NAME: 'C O Mitter',
    GIT_COMMITTER_EMAIL: 'committer@example.com',
    GIT_AUTHOR_DATE: '1700000000 +0000',
    GIT_COMMITTER_DATE: '1700000000 +0000',
    LC_ALL: 'C',
    ...extra,
  };
}

/** A temporary directory removed when the test ends. */
export function tempDir(t: TestContext | undefined, prefix = 'packscope-test-'): string {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)));
  t?.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

export class GitSandbox {
  readonly home: string;
  constructor(readonly root: string) {
    this.home = path.join(root, 'home');
    fs.mkdirSync(this.home, { recursive: true });
  }

  /** Runs git and returns stdout as a Buffer; throws with git's stderr on failure. */
  git(cwd: string, args: string[], options: { input?: string | Buffer; env?: Record<string, string> } = {}): Buffer {
    try {
      return execFileSync('git', args, {
        cwd,
        env: gitEnv(this.home, options.env),
        input: options.input,
        maxBuffer: 1 << 30,
        stdio: ['pipe', 'pipe', 'pipe'],
      });
    } catch (error) {
      const stderr = (error as { stderr?: Buffer }).stderr?.toString() ?? '';
      throw new Error(`git ${args.join(' ')} failed in ${cwd}: ${stderr}`);
    }
  }

  gitText(
    cwd: string,
    args: string[],
    options: { input?: string | Buffer; env?: Record<string, string> } = {},
  ): string {
    return this.git(cwd, args, options).toString('utf8');
  }

  /** `git init` of a new repository at root/name. */
  init(name: string, options: { bare?: boolean; objectFormat?: 'sha1' | 'sha256' } = {}): string {
    const dir = path.join(this.root, name);
    const args = ['init', '-q', '-b', 'main'];
    if (options.bare) args.push('--bare');
    if (options.objectFormat) args.push(`--object-format=${options.objectFormat}`);
    args.push(dir);
    this.git(this.root, args);
    return dir;
  }

  /** Feeds a fast-import stream (see history.ts) into the repository. */
  fastImport(repo: string, stream: Buffer): void {
    this.git(repo, ['fast-import', '--quiet', '--done'], { input: stream });
  }
}

export interface CliResult {
  status: number | null;
  stdout: Buffer;
  stderr: string;
}

/** Runs the bundled packscope CLI (dist/cli.js, built by `npm test` before the tests run). */
export function runCli(
  args: string[],
  options: { cwd?: string; env?: Record<string, string>; input?: string } = {},
): CliResult {
  const result: SpawnSyncReturns<Buffer> = spawnSync(process.execPath, [cliPath, ...args], {
    cwd: options.cwd ?? projectRoot,
    ...(options.input !== undefined ? { input: options.input } : {}),
    env: { ...process.env, PACKSCOPE_NO_PROGRESS: '1', ...options.env },
    maxBuffer: 1 << 30,
    timeout: 120_000,
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr.toString('utf8') };
}

/** The pack files (stems without extension) of an objects directory. */
export function packStems(objectsDir: string): string[] {
  const packDir = path.join(objectsDir, 'pack');
  return fs
    .readdirSync(packDir)
    .filter((name) => name.endsWith('.pack'))
    .map((name) => path.join(packDir, name.slice(0, -5)))
    .sort();
}

export const BATCH_CHECK_FORMAT = '%(objectname) %(objecttype) %(objectsize) %(objectsize:disk) %(deltabase)';

/** Every entry under `dir`: path, kind and content hash (mtimes ignored), sorted: "nothing written" compares two. */
export function directorySnapshot(dir: string): string[] {
  const out: string[] = [];
  const walk = (at: string): void => {
    for (const entry of fs.readdirSync(at, { withFileTypes: true })) {
      const full = path.join(at, entry.name);
      const rel = path.relative(dir, full);
      if (entry.isSymbolicLink()) out.push(`${rel} -> ${fs.readlinkSync(full)}`);
      else if (entry.isDirectory()) {
        out.push(`${rel}/`);
        walk(full);
      } else out.push(`${rel} ${createHash('sha256').update(fs.readFileSync(full)).digest('hex')}`);
    }
  };
  walk(dir);
  return out.sort();
}

/**
 * A stand-in for git in `dir` (returned: its path, to give as the git to run): the git command whose
 * arguments contain `pausesOn` writes its first `lines` lines, pauses `seconds`, then writes the rest,
 * with git's exit status; every other command is git itself. Progress lines then have a count to show
 * while git is still writing. git's output goes through a file, so no line is lost or split.
 */
export function pausingGit(dir: string, pausesOn: string, lines: number, seconds: number): string {
  const realGit = spawnSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).stdout.trim();
  const quoted = (text: string): string => `'${text.replace(/'/g, `'\\''`)}'`;
  const git = path.join(dir, 'git');
  const output = path.join(dir, 'output');
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(
    git,
    [
      '#!/bin/sh',
      'case "$*" in',
      `  *${quoted(pausesOn)}*)`,
      `    ${quoted(realGit)} "$@" > ${quoted(output)}.$$; status=$?`,
      `    sed -n '1,${lines}p' ${quoted(output)}.$$; sleep ${seconds}; sed '1,${lines}d' ${quoted(output)}.$$`,
      `    rm -f ${quoted(output)}.$$; exit $status ;;`,
      `  *) exec ${quoted(realGit)} "$@" ;;`,
      'esac',
      '',
    ].join('\n'),
    { mode: 0o755 },
  );
  return git;
}
