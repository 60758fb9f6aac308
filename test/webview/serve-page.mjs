// How the webview tests serve a panel's page to Chromium, as VS Code's webview origin would: the
// page itself at <origin>/index.html, the project's files (dist/, media/) below it, 404 for the rest.
import fs from 'node:fs';
import path from 'node:path';

export function servePage(page, { origin, root, html }) {
  return page.route(`${origin}/**`, (route) => {
    const url = new URL(route.request().url());
    if (url.pathname === '/index.html') return route.fulfill({ body: html, contentType: 'text/html' });
    const file = path.join(root, url.pathname);
    if (!file.startsWith(root) || !fs.existsSync(file)) return route.fulfill({ status: 404, body: '' });
    return route.fulfill({
      body: fs.readFileSync(file),
      contentType: file.endsWith('.css') ? 'text/css' : 'text/javascript',
    });
  });
}
