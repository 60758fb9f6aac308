// Entry point for `--extensionTestsPath` (VS Code calls run() inside the extension host).
// scripts/build.mjs bundles this file and every test/extension/*.test.ts into dist/test/extension/;
// run() adds every *.test.js found next to it, so a new suite needs no registration here.
// Runners: test/e2e/run.mjs (code-server, npm test) and test/electron/run-electron-tests.mjs.
import * as fs from 'node:fs';
import * as path from 'node:path';
import Mocha from 'mocha';

export function run(): Promise<void> {
  const mocha = new Mocha({ ui: 'bdd', timeout: 30_000, color: false });
  // PACKSCOPE_EXTENSION_TEST_GREP narrows the run to matching test titles.
  const grep = process.env.PACKSCOPE_EXTENSION_TEST_GREP;
  if (grep) mocha.grep(grep);
  const files = fs
    .readdirSync(__dirname)
    .filter((f) => f.endsWith('.test.js'))
    .sort();
  for (const f of files) mocha.addFile(path.join(__dirname, f));
  return new Promise((resolve, reject) => {
    try {
      mocha.run((failures) => (failures ? reject(new Error(`${failures} extension test(s) failed.`)) : resolve()));
    } catch (e) {
      reject(e);
    }
  });
}
