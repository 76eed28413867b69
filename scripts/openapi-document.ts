/**
 * The OpenAPI document exactly as the app serves it at /api/v1/openapi.json, made from
 * createApp() without a database or a server (the document route touches neither).
 */
import { createApp } from '../src/app.js';
import { cryptoRandom, type Deps, systemClock } from '../src/deps.js';

/** The app as the document route sees it: no database, no server. */
export function appWithoutDatabase() {
  const unused = () => {
    throw new Error('the document route needs no database');
  };
  const deps: Deps = {
    database: { acquire: unused },
    clock: systemClock,
    random: cryptoRandom,
    rateLimiter: { limit: async () => ({ success: true, retryAfterSeconds: 0 }) },
    mailer: { send: async () => {} },
    logger: { info: () => {}, error: (msg, fields) => console.error(msg, fields) },
    config: { publicUrl: 'http://localhost:8787', ipHashSalt: 'document' },
    clientIp: () => null,
    background: () => {},
  };
  return createApp(deps);
}

export async function openApiDocument(): Promise<Record<string, any>> {
  const res = await appWithoutDatabase().request('/api/v1/openapi.json');
  if (res.status !== 200) throw new Error(`GET /api/v1/openapi.json answered ${res.status}: ${await res.text()}`);
  return (await res.json()) as Record<string, any>;
}
