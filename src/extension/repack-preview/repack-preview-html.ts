/**
 * The Repack Preview panel's HTML: a shell loading the bundled webview script
 * (dist/webview/repack-preview.js), the Cache Lab's stylesheet (shared look: tables, buttons, charts)
 * and its own, under the Cache Lab's nonce-based content security policy. Nothing remote. Pure (no
 * vscode import).
 */
import { contentSecurityPolicy } from '../cache-lab/cache-lab-html.ts';

export interface RepackPreviewHtmlOptions {
  cspSource: string;
  nonce: string;
  scriptUri: string;
  /** The Cache Lab's stylesheet, then this panel's. */
  styleUris: string[];
}

const escapeAttribute = (value: string): string => value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');

export function repackPreviewHtml(options: RepackPreviewHtmlOptions): string {
  const csp = escapeAttribute(contentSecurityPolicy(options));
  const styles = options.styleUris.map((uri) => `<link rel="stylesheet" href="${escapeAttribute(uri)}" nonce="${options.nonce}">`).join('\n');
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1">
${styles}
<title>Repack Preview</title>
</head>
<body>
<main id="repack-preview" aria-busy="true"><p class="loading">Loading the repack preview…</p></main>
<script nonce="${options.nonce}" src="${escapeAttribute(options.scriptUri)}"></script>
</body>
</html>
`;
}
