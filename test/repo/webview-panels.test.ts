// The table of webview panels (src/extension/webview-panels.ts) against what else names a panel:
// package.json's activation events (VS Code restores a panel after a reload only if the extension
// activates on `onWebviewPanel:<viewType>`), the front ends under media/, and the files each row names.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { WEBVIEW_PANELS } from '../../src/extension/webview-panels.ts';

const root = path.resolve(import.meta.dirname, '..', '..');
const panels = Object.values(WEBVIEW_PANELS);

test("package.json activates on exactly the table's webview panels", () => {
  const manifest = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as {
    activationEvents: string[];
  };
  const activated = manifest.activationEvents.filter((event) => event.startsWith('onWebviewPanel:')).sort();
  assert.deepEqual(activated, panels.map((panel) => `onWebviewPanel:${panel.viewType}`).sort());
});

test('every front end under media/ is a row of the table, and every file a row names exists', () => {
  const frontEnds = fs
    .readdirSync(path.join(root, 'media'), { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && fs.existsSync(path.join(root, 'media', entry.name, 'main.ts')))
    .map((entry) => `media/${entry.name}/main.ts`)
    .sort();
  assert.deepEqual(frontEnds, panels.map((panel) => panel.entry).sort());
  for (const panel of panels) {
    for (const file of [panel.entry, panel.protocol, ...panel.styles.map((parts) => parts.join('/'))])
      assert.ok(fs.existsSync(path.join(root, file)), `${panel.viewType}: ${file} does not exist`);
  }
  const unique = (values: string[]): number => new Set(values).size;
  assert.equal(unique(panels.map((panel) => panel.viewType)), panels.length, 'two panels share a view type');
  assert.equal(unique(panels.map((panel) => panel.script)), panels.length, 'two panels share a bundle');
  assert.equal(unique(panels.map((panel) => panel.rootId)), panels.length, 'two panels share a root id');
});
