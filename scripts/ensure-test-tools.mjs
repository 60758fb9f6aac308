// Installs (with apt-get, once) the Debian packages the test suite uses besides Node and git:
// Chromium and ripgrep for the real VS Code workbench, and JGit with a JDK, whose BinaryDelta.format
// is the reference for object documents' delta listings (test/core/read-object.test.ts), and
// python3-pygit2, a real libgit2 whose reads the libgit2 policies are checked against
// (test/core/libgit2-real.test.ts).
import { ensureBrowserAndTools } from './vscode/code-server.mjs';

await ensureBrowserAndTools({
  extra: [
    { file: '/usr/share/java/org.eclipse.jgit.jar', pkg: 'libjgit-java' },
    { file: '/usr/bin/javac', pkg: 'openjdk-17-jdk-headless' },
    { file: '/usr/lib/python3/dist-packages/pygit2/__init__.py', pkg: 'python3-pygit2' },
  ],
});
