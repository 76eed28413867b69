import { sql } from 'drizzle-orm';
import { Hono } from 'hono';
import { describeRoute } from 'hono-openapi';
import { query } from '../db/client.js';
import type { AppEnv } from '../http/context.js';
import { htmlPage } from '../http/page.js';
import { json, security } from '../http/schemas.js';
import { describeError } from '../lib/describe-error.js';
import { HealthOk, HealthUnavailable } from './meta.schema.js';

export function healthRoutes() {
  const r = new Hono<AppEnv>();
  r.get(
    '/health',
    describeRoute({
      operationId: 'getHealth',
      tags: ['Meta'],
      summary: 'Liveness: 200 once the database answers',
      security: security.none,
      responses: {
        200: json('The service and its database answer', HealthOk),
        503: json('The database does not answer', HealthUnavailable),
      },
    }),
    async (c) => {
      try {
        await query(c.var.db(), sql`select 1`);
      } catch (e) {
        c.var.deps.logger.error('health check failed', { requestId: c.var.requestId, ...describeError(e) });
        return c.json({ status: 'unavailable' }, 503);
      }
      return c.json({ status: 'ok' });
    },
  );
  // the address the server prints leads somewhere useful: the console and the API reference
  r.get('/', describeRoute({ hide: true }), (c) =>
    htmlPage(c, 200, {
      title: 'Contest Engine',
      body: `<h1>Contest Engine</h1>
<ul>
<li><a href="/console">The console</a>: run your contests from the browser (sign in with a private key or the admin token).</li>
<li><a href="/docs">The API reference</a> (<a href="/api/v1/openapi.json">OpenAPI document</a>).</li>
</ul>`,
      css: '',
      script: null,
    }),
  );
  return r;
}
