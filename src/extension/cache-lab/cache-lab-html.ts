/**
 * The Cache Lab's HTML: a shell that loads the bundled webview script (dist/webview/cache-lab.js)
 * and its stylesheet (media/cache-lab/cache-lab.css) under a nonce-based content security policy.
 * Nothing remote, no inline script or style without the nonce. Pure (no vscode import), so the
 * webview unit tests (test/webview/run.mjs) load the very same page.
 */

export interface CacheLabHtmlOptions {
  /** `webview.cspSource`: the origin the webview's own resources are served from. */
  cspSource: string;
  /** Fresh for every page: only scripts carrying it run. */
  nonce: string;
  scriptUri: string;
  styleUri: string;
}

export function contentSecurityPolicy({ cspSource, nonce }: Pick<CacheLabHtmlOptions, 'cspSource' | 'nonce'>): string {
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

const escapeAttribute = (value: string): string => value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');

export function cacheLabHtml(options: CacheLabHtmlOptions): string {
  const csp = escapeAttribute(contentSecurityPolicy(options));
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="stylesheet" href="${escapeAttribute(options.styleUri)}" nonce="${options.nonce}">
<title>Cache Lab</title>
</head>
<body>
<main id="cache-lab" aria-busy="true"><p class="loading">Loading the Cache Lab…</p></main>
<script nonce="${options.nonce}" src="${escapeAttribute(options.scriptUri)}"></script>
</body>
</html>
`;
}
