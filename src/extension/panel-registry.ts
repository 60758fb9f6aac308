// The host's side of a kind of panel (one row of webview-panels.ts): the panels it opened or VS Code
// restored, the current one, the serializer that restores them after a reload, and what `onDidOpen`
// tells the tests. Each feature (cache-lab.ts, repack-preview-command.ts, pack-map.ts) builds its PanelHost
// and hands it to `adopt`.
import vscode = require('vscode');
import type { Lifetime } from './dispose.ts';
import type { WebviewPanelDefinition } from './webview-panels.ts';

/** As much of a PanelHost as the registry needs. */
interface AdoptedPanel extends vscode.Disposable {
  readonly onDidDispose: vscode.Event<void>;
}

export interface PanelRegistryOptions<P> {
  /** The extension's lifetime: the serializer and every open panel are disposed with it. */
  lifetime: Lifetime;
  definition: WebviewPanelDefinition;
  /**
   * A panel VS Code recreated after a reload, with the webview's last setState: the feature builds
   * its host and adopts it, or returns undefined when the state is of no use (the panel is closed).
   */
  restore(panel: vscode.WebviewPanel, state: unknown): Promise<P | undefined> | P | undefined;
}

export class PanelRegistry<P extends AdoptedPanel> {
  private currentPanel: P | undefined;
  private readonly open = new Set<P>();
  private readonly opened: vscode.EventEmitter<P>;
  /** Fires when a panel is created or restored. */
  readonly onDidOpen: vscode.Event<P>;

  constructor(private readonly options: PanelRegistryOptions<P>) {
    const { lifetime, definition } = options;
    this.opened = lifetime.register(new vscode.EventEmitter<P>());
    this.onDidOpen = this.opened.event;
    lifetime.register(
      vscode.window.registerWebviewPanelSerializer(definition.viewType, {
        deserializeWebviewPanel: async (panel, state: unknown) => {
          const restored = await options.restore(panel, state);
          if (restored === undefined) panel.dispose();
        },
      }),
    );
    lifetime.register(
      new vscode.Disposable(() => {
        for (const panel of [...this.open]) panel.dispose();
      }),
    );
  }

  /** The panel opened or restored last, while it is open. */
  get current(): P | undefined {
    return this.currentPanel;
  }

  /** Every open panel, oldest first. */
  get panels(): readonly P[] {
    return [...this.open];
  }

  /** A new webview panel of this kind, titled as the table says until its host names it. */
  createPanel(
    column: vscode.ViewColumn,
    options: vscode.WebviewPanelOptions & vscode.WebviewOptions = {},
  ): vscode.WebviewPanel {
    const { viewType, title } = this.options.definition;
    return vscode.window.createWebviewPanel(viewType, title, column, options);
  }

  /** Tracks a panel's host until it is disposed: it becomes the current panel. */
  adopt(panel: P): P {
    this.currentPanel = panel;
    this.open.add(panel);
    panel.onDidDispose(() => {
      this.open.delete(panel);
      if (this.currentPanel === panel) this.currentPanel = undefined;
    });
    this.opened.fire(panel);
    return panel;
  }
}
