/**
 * The one HTML shell of PackScope's webviews (each row of webview-panels.ts): the bundled
 * script (dist/webview/<name>.js) and the stylesheets under a nonce-based content security policy.
 * Nothing remote, no inline script or style without the nonce. Pure (no vscode import), so the
 * webview unit tests (test/webview/run.mjs) load the very same page.
 */

/** What differs between the panels' pages. */
export interface WebviewPage {
  title: string;
  /** The id of the `<main>` the webview script draws into. */
  rootId: string;
  /** Shown until the script has drawn. */
  loadingText: string;
}

export interface WebviewResources {
  /** `webview.cspSource`: the origin the webview's own resources are served from. */
  cspSource: string;
  /** Fresh for every page: only scripts carrying it run. */
  nonce: string;
  scriptUri: string;
  /** In the order they apply (a panel's own stylesheet after the shared one). */
  styleUris: string[];
}

export function contentSecurityPolicy({ cspSource, nonce }: Pick<WebviewResources, 'cspSource' | 'nonce'>): string {
  return [
    "default-src 'none'",
    `script-src 'nonce-${nonce}'`,
    `style-src ${cspSource} 'nonce-${nonce}'`,
    `img-src ${cspSource} data:`,
    `font-src ${cspSource}`,
  ].join('; ');
}

/** 32 characters of [A-Za-z0-9] from a CSPRNG (Web Crypto exists in Node 20 and in browsers). */
export function makeNonce(): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
  const bytes = new Uint8Array(32);
  globalThis.crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => alphabet[b % alphabet.length]).join('');
}

const escapeAttribute = (value: string): string =>
  value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');

export function webviewHtml(page: WebviewPage, resources: WebviewResources): string {
  const csp = escapeAttribute(contentSecurityPolicy(resources));
  const styles = resources.styleUris
    .map((uri) => `<link rel="stylesheet" href="${escapeAttribute(uri)}" nonce="${resources.nonce}">`)
    .join('\n');
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1">
${styles}
<title>${page.title}</title>
</head>
<body>
<main id="${page.rootId}" aria-busy="true"><p class="loading">${page.loadingText}</p></main>
<script nonce="${resources.nonce}" src="${escapeAttribute(resources.scriptUri)}"></script>
</body>
</html>
`;
}
