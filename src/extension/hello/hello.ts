// The Hello panel: its registry (serializer, current panel) and what opens one.
import vscode = require('vscode');
import type { Lifetime } from '../dispose.ts';
import { PanelRegistry } from '../panel-registry.ts';
import { WEBVIEW_PANELS } from '../webview-panels.ts';
import { HelloPanel } from './hello-panel.ts';

export function registerHello(lifetime: Lifetime, context: vscode.ExtensionContext, output: vscode.LogOutputChannel) {
  const registry: PanelRegistry<HelloPanel> = new PanelRegistry({
    lifetime,
    definition: WEBVIEW_PANELS.hello,
    restore: (panel) => registry.adopt(new HelloPanel(panel, context.extensionUri, output)),
  });
  return {
    open: (): HelloPanel =>
      registry.adopt(new HelloPanel(registry.createPanel(vscode.ViewColumn.Active), context.extensionUri, output)),
  };
}
