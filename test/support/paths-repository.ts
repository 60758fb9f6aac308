/**
 * A repository that exercises every rule of `git rev-list --objects --all`'s naming: a generated
 * history (renames, deletions, nested directories, tags every 50 commits) plus hand-made commits
 * with equal dates on two branches and a merge, the same blob at several paths, a gitlink, a
 * non-ASCII name, an annotated tag of a tree, of a blob and of another tag, a ref to a bare tree,
 * commit messages whose subject spans lines or starts after blank lines; then two packs and loose
 * objects on top.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { ObjectPaths, StoreWalkInputs } from '../../src/core/model/object-paths.ts';
import type { GitSandbox } from './git.ts';
import { historyStream } from './history.ts';

export function pathsRepository(sandbox: GitSandbox, name: string, commits = 300): string {
  const repo = sandbox.init(name);
  sandbox.fastImport(repo, historyStream({ commits, files: 30, renameRate: 0.2 }));
  sandbox.git(repo, ['repack', '-adq']);
  sandbox.git(repo, ['checkout', '-q', 'main']);
  const git = (args: string[], env: Record<string, string> = {}, input?: string): string =>
    sandbox.gitText(repo, args, { env, ...(input === undefined ? {} : { input }) }).trim();
  const tied = { GIT_AUTHOR_DATE: '1800000000 +0000', GIT_COMMITTER_DATE: '1800000000 +0000' };
  const write = (file: string, text: string): void => {
    fs.mkdirSync(path.dirname(path.join(repo, file)), { recursive: true });
    fs.writeFileSync(path.join(repo, file), text);
  };
  write('deep/a/b/c/same.txt', 'shared\n');
  write('other/same.txt', 'shared\n');
  write('naïve/ünïcode file.txt', 'unicode\n');
  git(['add', '-A']);
  git(['update-index', '--add', '--cacheinfo', `160000,${'1'.repeat(40)},vendor/submodule`]);
  git(['commit', '-q', '-m', 'shared blobs, a gitlink\nand a second subject line', '-m', 'body'], tied);
  git(['checkout', '-q', '-b', 'side']);
  write('side/only.txt', 'side\n');
  git(['add', '-A']);
  git(['commit', '-q', '-m', 'side: same date as main'], tied);
  git(['checkout', '-q', 'main']);
  fs.mkdirSync(path.join(repo, 'renamed'));
  git(['mv', 'other/same.txt', 'renamed/same.txt']);
  write('deep/a/b/c/same.txt', 'changed\n');
  git(['commit', '-q', '-am', 'main: same date, a rename'], tied);
  git(['merge', '-q', '--no-edit', 'side'], tied);
  const tree = git(['rev-parse', 'HEAD~1^{tree}']);
  const blob = git(['rev-parse', 'HEAD:deep/a/b/c/same.txt']);
  git(['tag', '-a', 'tree-tag', '-m', 'a tree', tree], tied);
  git(['tag', '-a', 'blob-tag', '-m', 'a blob', blob], tied);
  git(['tag', '-a', 'tag-of-tag', '-m', 'nested', 'tree-tag'], tied);
  git(['tag', 'light', 'HEAD~2']);
  git(['update-ref', 'refs/trees/bare', git(['rev-parse', 'HEAD~2^{tree}'])]);
  // A message git commit would clean up: leading blank lines, trailing spaces, a two-line subject.
  const raw = `tree ${git(['rev-parse', 'HEAD^{tree}'])}\nparent ${git(['rev-parse', 'HEAD'])}\nauthor A U Thor <author@example.com> 1800000100 +0000\ncommitter C O Mitter <committer@example.com> 1800000100 +0000\n\n\n  \nfirst line   \nsecond line\t\n\nbody\n`;
  const odd = git(['hash-object', '-t', 'commit', '-w', '--stdin'], {}, raw);
  git(['update-ref', 'refs/heads/odd-message', odd]);
  // A second pack (incremental), then loose objects on top.
  git(['repack', '-dq']);
  write('loose/new.txt', 'loose\n');
  git(['add', '-A']);
  git(['commit', '-q', '-m', 'loose commit'], {
    GIT_AUTHOR_DATE: '1800000200 +0000',
    GIT_COMMITTER_DATE: '1800000200 +0000',
  });
  return repo;
}

/** `git rev-list --objects --all` as oid → name (undefined for a commit, which has none), names as raw bytes in latin1. */
export function revListNames(sandbox: GitSandbox, repo: string): Map<string, string | undefined> {
  const names = new Map<string, string | undefined>();
  for (const line of sandbox.git(repo, ['rev-list', '--objects', '--all']).toString('latin1').split('\n')) {
    if (line === '') continue;
    const space = line.indexOf(' ');
    names.set(space < 0 ? line : line.slice(0, space), space < 0 ? undefined : line.slice(space + 1));
  }
  return names;
}

/**
 * Every packed object's name as the walk (or git's names) gave it: oid → the path's bytes in latin1
 * (as revListNames gives rev-list's), or undefined when unnamed; an object in several packs, its first.
 */
export function packedNames(inputs: StoreWalkInputs, paths: ObjectPaths): Map<string, string | undefined> {
  const names = new Map<string, string | undefined>();
  inputs.models.forEach((model, p) => {
    for (let n = 0; n < model.count; n++) {
      const node = paths.pathOf[p]![n]!;
      if (!names.has(model.oidHex(n)))
        names.set(model.oidHex(n), node < 0 ? undefined : paths.table.pathBytes(node).toString('latin1'));
    }
  });
  return names;
}
