// One ownership style for the whole extension: whatever holds a registration (a command, a
// listener, an emitter, a panel) is an owner that registers it here, and is itself registered with
// its own owner, up to the root that `activate` hands to VS Code.
import type * as vscode from 'vscode';

/** An owner: what it registers is disposed with it, the last registered first (as it was built, undone). */
export abstract class Disposable implements vscode.Disposable {
  private readonly owned: vscode.Disposable[] = [];
  private disposedValue = false;

  protected get isDisposed(): boolean {
    return this.disposedValue;
  }

  /** Takes ownership of `child`; an owner already disposed disposes it at once. */
  protected _register<T extends vscode.Disposable>(child: T): T {
    if (this.disposedValue) child.dispose();
    else this.owned.push(child);
    return child;
  }

  dispose(): void {
    if (this.disposedValue) return;
    this.disposedValue = true;
    for (const child of this.owned.splice(0).reverse()) child.dispose();
  }
}

/**
 * A lifetime others register into: the extension's (everything `activate` creates) and the
 * server's (what dies when the language client is replaced), as rust-analyzer's ctx.ts keeps
 * `extCtx.subscriptions` apart from its client's subscriptions.
 */
export class Lifetime extends Disposable {
  register<T extends vscode.Disposable>(child: T): T {
    return this._register(child);
  }
}
