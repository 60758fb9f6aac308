// Runs inside the VS Code extension host (see test/extension/index.ts).
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';

describe('PackScope in the extension host', () => {
  it('runs in a Node 20 extension host', () => {
    const major = Number(process.versions.node.split('.')[0]);
    console.log(
      `node ${process.versions.node}, VS Code ${vscode.version}, remoteName=${vscode.env.remoteName ?? '(local)'}, ` +
        `uiKind=${vscode.UIKind[vscode.env.uiKind]}`,
    );
    // The bundles target node20 (scripts/build.mjs); code-server 4.100.3 and VS Code 1.100 both run Node 20.
    assert.equal(major, 20, `extension host runs Node ${process.versions.node}`);
  });

  it('knows the extension packscope.packscope', () => {
    const ext = vscode.extensions.getExtension('packscope.packscope');
    assert.ok(ext, 'vscode.extensions.getExtension("packscope.packscope") is undefined');
    assert.equal(ext.packageJSON.name, 'packscope');
    assert.equal(ext.extensionKind, vscode.ExtensionKind.Workspace);
  });
});
