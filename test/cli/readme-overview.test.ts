// The README's CLI block shows `packscope --help`'s overview; a new command's row must appear in both.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { projectRoot, runCli } from '../support/git.ts';

test("the README's CLI block is the --help overview down to its command list", () => {
  const readme = fs.readFileSync(path.join(projectRoot, 'README.md'), 'utf8');
  const block = /\n## The CLI\n\n```\n([^`]*)```\n/.exec(readme)?.[1];
  assert.ok(block !== undefined, "README.md has a fenced block right under '## The CLI'");
  const overview = runCli(['--help']).stdout.toString('utf8');
  assert.equal(overview.slice(0, block.length), block);
  assert.match(
    overview.slice(block.length),
    /^\nRun "packscope <command> --help"/,
    'the block ends with the last command',
  );
});
