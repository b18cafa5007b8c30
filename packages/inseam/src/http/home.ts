/**
 * The page at `/` until the web page arrives: plain HTML naming the networks and linking to the
 * API's description, so the URL `inseam up` prints works. It needs no token and shows nothing but
 * network slugs.
 */
import type { NetworkRecord } from '../store/index.js';

function escape(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}

export function homePage(networks: readonly NetworkRecord[]): string {
  const items = networks.length === 0 ? '<li>none yet</li>' : networks.map((network) => `<li><code>${escape(network.slug)}</code> — ${escape(network.label)}</li>`).join('\n      ');
  return `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>inseam</title>
  </head>
  <body>
    <h1>inseam is running</h1>
    <p>Networks on this server:</p>
    <ul>
      ${items}
    </ul>
    <p>The HTTP API is at <a href="/v1/openapi.json"><code>/v1</code></a> (its OpenAPI description: <a href="/v1/openapi.json">/v1/openapi.json</a>);
    agents connect to the MCP endpoint at <code>/mcp</code>. Both take <code>Authorization: Bearer &lt;token&gt;</code>.</p>
    <p>The web page comes in a later release.</p>
  </body>
</html>
`;
}

/** Headers for the page: nothing runs, nothing is framed. */
export const HOME_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'content-type': 'text/html; charset=utf-8',
  'content-security-policy': "default-src 'none'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
});
