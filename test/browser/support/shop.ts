/**
 * The two servers of a widget's browser test: the app itself (its own origin) and a shop, a page
 * of ANOTHER origin that embeds the widget under a strict Content-Security-Policy (scripts and
 * requests only to the app's origin, no inline style, no image).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import type { TestEnv } from '../../support/harness.js';

const listening = (s: Server) => new Promise<void>((r) => (s.listening ? r() : s.once('listening', () => r())));
const originOf = (s: Server) => `http://127.0.0.1:${(s.address() as AddressInfo).port}`;

/** The app on a loopback port; the emails' and pages' links point at it (publicUrl). */
export async function serveApp(env: TestEnv): Promise<{ server: Server; origin: string }> {
  const server = serve({ hostname: '127.0.0.1', port: 0, fetch: env.app.fetch }) as Server;
  await listening(server);
  const origin = originOf(server);
  env.deps.config.publicUrl = origin;
  return { server, origin };
}

/**
 * The shop: `page(path)` answers the page's `<title>`, heading and widget markup; the shop wraps it
 * in a document that loads `/signup.js` from `apiOrigin`, under the strict CSP.
 */
export async function serveShop(
  apiOrigin: string,
  page: (path: string) => { title: string; body: string },
): Promise<{ server: Server; origin: string }> {
  const server = createServer((req, res) => {
    res.writeHead(200, {
      'content-type': 'text/html; charset=utf-8',
      'content-security-policy': `default-src 'none'; script-src ${apiOrigin}; connect-src ${apiOrigin}; style-src 'none'; img-src 'none'`,
    });
    const p = page(req.url ?? '/');
    res.end(`<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1"><title>${p.title}</title>
<script src="${apiOrigin}/signup.js" defer></script></head>
<body><main>${p.body}</main></body></html>`);
  });
  server.listen(0, '127.0.0.1');
  await listening(server);
  return { server, origin: originOf(server) };
}

export const closeAll = (...servers: (Server | undefined)[]) =>
  Promise.all(servers.map((s) => s && new Promise((r) => s.close(r))));
