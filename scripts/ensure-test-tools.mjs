// Installs (with apt-get, once) the Debian packages the test suite uses besides Node and git:
// Chromium and ripgrep for the real VS Code workbench, and JGit with a JDK, whose BinaryDelta.format
// is the reference for object documents' delta listings (test/core/read-object.test.ts).
import { ensureBrowserAndTools } from './vscode/code-server.mjs';

await ensureBrowserAndTools({
  extra: [
    { file: '/usr/share/java/org.eclipse.jgit.jar', pkg: 'libjgit-java' },
    { file: '/usr/bin/javac', pkg: 'openjdk-17-jdk-headless' },
  ],
});
