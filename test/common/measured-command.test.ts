/**
 * The allow-list of Measure for real (src/common/measured-command.ts): what a recording may name
 * and still be re-run, and the sentence for everything else. The same function runs in the extension
 * before its dialog and in the server before git (test/server/config-runs-nothing.test.ts drives the
 * server with real repositories).
 */
import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { measuredCommandRefusal } from '../../src/common/measured-command.ts';

test('every option that makes git run a program, write, or move is refused, naming it', () => {
  const refused: [string[], string][] = [
    [['-c', 'alias.l=!touch x', 'l', 'log', '--raw'], '"-c alias.l=!touch x"'],
    [['-c', 'core.pager=sh -c x', 'log'], '"-c core.pager=sh -c x"'],
    [['-c', 'Core.Editor=x', 'log'], '"-c Core.Editor=x"'],
    [['-c', 'core.sshCommand=x', 'log'], '"-c core.sshCommand=x"'],
    [['-c', 'core.fsmonitor=x', 'log'], '"-c core.fsmonitor=x"'],
    [['-c', 'core.hooksPath=/tmp', 'log'], '"-c core.hooksPath=/tmp"'],
    [['-c', 'pager.log=x', 'log'], '"-c pager.log=x"'],
    [['-c', 'credential.helper=!x', 'log'], '"-c credential.helper=!x"'],
    [['-c', 'protocol.ext.allow=always', 'log'], '"-c protocol.ext.allow=always"'],
    [['-c', 'include.path=/tmp/x', 'log'], '"-c include.path=/tmp/x"'],
    [['-c', 'diff.x.textconv=touch y', 'log', '-p'], '"-c diff.x.textconv=touch y"'],
    [['-c'], '"-c"'],
    [['--config-env=core.pager=EVIL', 'log'], '"--config-env=core.pager=EVIL"'],
    [['--config-env', 'core.pager=EVIL', 'log'], '"--config-env"'],
    [['--exec-path=/tmp/evil', 'log'], '"--exec-path=/tmp/evil"'],
    [['-C', 'sub', 'cat-file', '--batch-all-objects', '--batch-check'], '"-C"'],
    [['--git-dir=/elsewhere', 'log'], '"--git-dir=/elsewhere"'],
    [['--work-tree', '/elsewhere', 'log'], '"--work-tree"'],
    [['--namespace=x', 'log'], '"--namespace=x"'],
    [['--bare', 'log'], '"--bare"'],
    [['-p', 'log'], '"-p"'],
    [['--super-prefix=x/', 'log'], '"--super-prefix=x/"'],
    [['--unknown-global', 'log'], '"--unknown-global"'],
    [['fetch', '--upload-pack=touch x', 'origin'], '"fetch"'],
    [['ls-remote', '-u', 'touch x', 'origin'], '"ls-remote"'],
    [['bisect', 'run', 'touch', 'x'], '"bisect"'],
    [['config', '--global', 'core.fsmonitor', 'x'], '"config"'],
    [['commit', '-m', 'x'], '"commit"'],
    [['gc', '--prune=now'], '"gc"'],
    [['clean', '-fdx'], '"clean"'],
    [['reset', '--hard'], '"reset"'],
    [['push'], '"push"'],
    [['status'], '"status"'],
    [['format-patch', '-1'], '"format-patch"'],
    [['l'], '"l"'],
    [['log', '-1', '--output=f'], '"log --output=f"'],
    [['log', '-1', '--output', 'f'], '"log --output"'],
    [['show', '--ext-diff'], '"show --ext-diff"'],
    [['log', '-p', '--textconv'], '"log --textconv"'],
    [['diff', '--no-index', 'a', 'b'], '"diff --no-index"'],
    [['grep', '-O', 'x'], '"grep -O"'],
    [['grep', '-nOvi', 'x'], '"grep -nOvi"'],
    [['grep', '--open-files-in-pager=vi', 'x'], '"grep --open-files-in-pager=vi"'],
    [['grep', '--open', 'x'], '"grep --open"'],
    [['archive', '-o', 'f', 'HEAD'], '"archive -o"'],
    [['archive', '-of', 'HEAD'], '"archive -of"'],
    [['archive', '--outp=f', 'HEAD'], '"archive --outp=f"'],
    [['archive', '--remote=x', 'HEAD'], '"archive --remote=x"'],
    [['archive', '--rem=x', 'HEAD'], '"archive --rem=x"'],
    [['archive', '--exec=x', 'HEAD'], '"archive --exec=x"'],
    [['archive', '--add-file=/etc/passwd', 'HEAD'], '"archive --add-file=/etc/passwd"'],
    [['cat-file', '--textconv', 'HEAD:x'], '"cat-file --textconv"'],
    [['describe', '--dirty'], '"describe --dirty"'],
  ];
  for (const [args, part] of refused) {
    const refusal = measuredCommandRefusal(args);
    assert.ok(refusal !== undefined, `refused: ${JSON.stringify(args)}`);
    assert.ok(refusal.includes(`refuses ${part}`), `${JSON.stringify(args)}: ${refusal}`);
    assert.match(refusal, /^Measure for real re-runs only git commands that read; it refuses .+: .+\.$/s);
  }
  assert.equal(
    measuredCommandRefusal(['-c']),
    'Measure for real re-runs only git commands that read; it refuses "-c": it names no setting.',
  );
  assert.equal(measuredCommandRefusal([]), 'Measure for real needs a git command to run; the recording names none.');
});

test('ordinary reading commands pass, with the settings that tune reading', () => {
  for (const args of [
    ['log', '--raw'],
    ['-c', 'core.deltaBaseCacheLimit=0', 'log', '-p'],
    ['-c', 'pack.window=10', '--no-pager', 'rev-list', '--objects', '--all'],
    ['log', '-u', '--', '-c'],
    ['log', '--format=%H %s'],
    ['log', '-p', '--output-indicator-new=+'],
    ['log', '--', '--output'],
    ['blame', '--', 'file.txt'],
    ['cat-file', '--batch-all-objects', '--batch-check'],
    ['grep', '-n', 'x', 'HEAD'],
    ['archive', '--format=tar', 'HEAD'],
    ['diff-tree', '-r', 'HEAD'],
    ['ls-tree', '-r', 'HEAD'],
    ['show', 'HEAD:file.txt'],
  ]) {
    assert.equal(measuredCommandRefusal(args), undefined, JSON.stringify(args));
  }
});
