/**
 * The README's generated figures (`<!-- figures:NAME -->` regions) are what
 * scripts/readme-figures.ts makes from the current code on its seeded repository. The figures
 * depend on git only through the pack it writes, so the check runs when the installed git is the
 * one the README's figures name, and says so when it is not.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { test } from 'node:test';
import { gitVersion, readmeFigures, readmePath, readmeRegions, withFigures } from '../../scripts/readme-figures.ts';

test("the README's marked regions equal what scripts/readme-figures.ts makes now", (t) => {
  const readme = fs.readFileSync(readmePath, 'utf8');
  const regions = readmeRegions(readme);
  assert.deepEqual([...regions.keys()].sort(), ['index-pack-sim', 'sweep']);
  const madeWith = /, git (\d[^)]*)\):/.exec(regions.get('sweep') ?? '')?.[1];
  assert.ok(madeWith !== undefined, 'the sweep figure names the git that made it');
  if (madeWith !== gitVersion()) {
    t.skip(
      `the README's figures were made with git ${madeWith}, this machine has git ${gitVersion()}: its packs differ`,
    );
    return;
  }
  const figures = readmeFigures();
  for (const [name, body] of figures)
    assert.equal(
      regions.get(name),
      body,
      `README.md figures:${name} is stale: run node --import tsx scripts/readme-figures.ts`,
    );
  assert.equal(withFigures(readme, figures), readme);
});

test('withFigures rewrites only the marked regions, and refuses regions it does not make', () => {
  const text = 'a\n<!-- figures:one -->\nold\n<!-- /figures -->\nb\n';
  assert.equal(
    withFigures(text, new Map([['one', 'new\nlines']])),
    'a\n<!-- figures:one -->\nnew\nlines\n<!-- /figures -->\nb\n',
  );
  assert.throws(() => withFigures(text, new Map()), /region "one" that scripts\/readme-figures.ts does not make/);
  assert.throws(
    () =>
      withFigures(
        text,
        new Map([
          ['one', 'x'],
          ['two', 'y'],
        ]),
      ),
    /no region <!-- figures:two -->/,
  );
});
