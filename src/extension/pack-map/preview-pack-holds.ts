// Who still shows a repack preview's kept pack (the Pack Map's before and after): the Repack Preview
// panel of the run that kept it, and each Pack Map panel drawing it. The server keeps the pack in
// its temporary directory until the last of them lets go, then removes it (packscope/releasePreviewPack).
import { errorMessage } from '../../common/error-message.ts';
import vscode = require('vscode');
import { ReleasePreviewPackRequest } from '../../protocol/server-protocol.ts';
import { type ServerClient } from '../server-client.ts';

export class PreviewPackHolds {
  private readonly holders = new Map<string, number>();

  constructor(
    private readonly server: ServerClient,
    private readonly output: vscode.LogOutputChannel,
  ) {}

  /** Keeps `pack` while the returned disposable lives. */
  hold(pack: string): vscode.Disposable {
    this.holders.set(pack, (this.holders.get(pack) ?? 0) + 1);
    let held = true;
    return new vscode.Disposable(() => {
      if (!held) return;
      held = false;
      const left = (this.holders.get(pack) ?? 1) - 1;
      if (left > 0) {
        this.holders.set(pack, left);
        return;
      }
      this.holders.delete(pack);
      this.server.request(ReleasePreviewPackRequest, { pack }).then(
        ({ released }) =>
          released && this.output.info(`Removed the repack preview pack ${pack}: nothing shows it any more.`),
        (error: unknown) => this.output.warn(`Repack preview pack ${pack}: release failed: ${errorMessage(error)}`),
      );
    });
  }

  /** Packs held now (the tests read it). */
  get held(): string[] {
    return [...this.holders.keys()];
  }
}
