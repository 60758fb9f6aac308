// The test suites' setup step: installs (with apt-get, once) the Debian packages the suites use
// besides Node and git, and code-server for the e2e suite. Nothing in a test installs anything: a
// test whose tool is missing fails and names this script.
//
//   node scripts/ensure-test-tools.mjs             what every suite needs
//   node scripts/ensure-test-tools.mjs unit e2e    what the named suites need (scripts/test.mjs's names)
//
// The unit suite: JGit with a JDK, whose BinaryDelta.format is the reference for object documents'
// delta listings (test/core/read-object.test.ts); python3-pygit2, a real libgit2 whose reads the
// libgit2 policies are checked against (test/core/libgit2-real.test.ts); util-linux's `script`, a
// terminal for the progress line (test/cli/progress.test.ts); git-filter-repo, whose `--analyze`
// report files `packscope sizes` must equal (test/cli/exact-sizes.test.ts). The webview suites: Chromium. The e2e
// suite: Chromium, ripgrep and native-module tools for the real VS Code workbench, and code-server.
import { BROWSER_AND_TOOLS, CHROMIUM, ensureCodeServer, ensureDebianPackages } from './vscode/code-server.mjs';

const UNIT = [
  { file: '/usr/share/java/org.eclipse.jgit.jar', pkg: 'libjgit-java' },
  { file: '/usr/bin/javac', pkg: 'openjdk-17-jdk-headless' },
  { file: '/usr/lib/python3/dist-packages/pygit2/__init__.py', pkg: 'python3-pygit2' },
  { command: 'script', pkg: 'bsdutils' },
  { file: '/usr/bin/git-filter-repo', pkg: 'git-filter-repo' },
];
const BROWSER = [{ file: CHROMIUM, pkg: 'chromium' }];
const NEEDS = { unit: UNIT, webview: BROWSER, 'pack-map': BROWSER, 'tables-links': BROWSER, e2e: BROWSER_AND_TOOLS };

const suites = process.argv.slice(2);
for (const s of suites)
  if (!(s in NEEDS)) throw new Error(`no such suite "${s}" (have: ${Object.keys(NEEDS).join(', ')})`);
const chosen = suites.length ? suites : Object.keys(NEEDS);
const needs = [...new Map(chosen.flatMap((s) => NEEDS[s]).map((n) => [n.pkg, n])).values()];
await ensureDebianPackages(needs);
if (chosen.includes('e2e')) await ensureCodeServer();
