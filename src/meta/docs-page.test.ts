/**
 * /docs is served by the app itself: the page, its start script and the Swagger UI files (from the
 * installed swagger-ui-dist, as `npm start` reads them) all answer from the app's own origin with
 * the right content types, under a Content-Security-Policy that allows only 'self'.
 */
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, type TestEnv } from '../../test/support/harness.js';
import { type App, createApp } from '../app.js';
import { docsFiles, swaggerUiFile } from './docs-files.js';

let env: TestEnv;
/** the app as node.ts builds it: static files read from the package */
let nodeApp: App;
/** the app as worker.ts builds it: no static files (the platform serves them), platform compresses */
let workerApp: App;

beforeAll(async () => {
  env = await createTestEnv({ backend: 'pglite' });
  nodeApp = createApp({ ...env.deps, staticFiles: docsFiles() });
  workerApp = createApp({
    ...env.deps,
    staticFiles: undefined,
    config: { ...env.deps.config, platformCompresses: true },
  });
});
afterAll(() => env.close());

/** every src= / href= of the page, in order */
function references(html: string): string[] {
  return [...html.matchAll(/\s(?:src|href)="([^"]*)"/g)].map((m) => m[1]!);
}

const CONTENT_TYPES: Record<string, RegExp> = {
  '.js': /^text\/javascript; charset=utf-8$/,
  '.css': /^text\/css; charset=utf-8$/,
  '.json': /^application\/json/,
};

describe('GET /docs and what it references', () => {
  it('answers the page with a CSP that allows only the app itself', async () => {
    const res = await nodeApp.request('/docs');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    const csp = res.headers.get('content-security-policy')!;
    const directives = Object.fromEntries(
      csp
        .split(';')
        .map((d) => d.trim().split(/\s+/))
        .map(([k, ...v]) => [k, v.join(' ')]),
    );
    expect(directives).toEqual({
      'default-src': "'none'",
      'script-src': "'self'",
      'style-src': "'self'",
      'img-src': "'self' data:",
      'connect-src': "'self'",
      'base-uri': "'none'",
      'form-action': "'none'",
      'frame-ancestors': "'none'",
    });
    // no source or host anywhere but 'self' (and data: images)
    expect(csp).not.toMatch(/https?:|\*|'unsafe-/);
    const html = await res.text();
    expect(html).not.toMatch(/https?:\/\//);
    expect(html).not.toMatch(/<script>(?!<\/script>)|<script(?![^>]*\ssrc=)[^>]*>/); // no inline script
    expect(html).not.toMatch(/<style|\sstyle=/);
  });

  it('every script and stylesheet the page references answers 200 with its content type (Node)', async () => {
    const html = await (await nodeApp.request('/docs')).text();
    const refs = references(html).filter((r) => !r.startsWith('data:'));
    expect(refs).toEqual([
      '/docs/assets/swagger-ui.css',
      '/docs/assets/swagger-ui-bundle.js',
      '/docs/init.js',
      '/api/v1/openapi.json',
    ]);
    for (const ref of refs) {
      expect(ref.startsWith('/')).toBe(true);
      const res = await nodeApp.request(ref);
      expect(res.status, ref).toBe(200);
      const ext = /\.\w+$/.exec(ref)![0];
      expect(res.headers.get('content-type'), ref).toMatch(CONTENT_TYPES[ext]!);
      expect((await res.arrayBuffer()).byteLength, ref).toBeGreaterThan(100);
    }
  });

  it('serves the files of the installed swagger-ui-dist byte for byte, gzipped on Node when accepted, with ETags', async () => {
    for (const file of ['swagger-ui-bundle.js', 'swagger-ui.css']) {
      const onDisk = readFileSync(swaggerUiFile(file));
      const plain = await nodeApp.request(`/docs/assets/${file}`);
      expect(Buffer.from(await plain.arrayBuffer()).equals(onDisk), file).toBe(true);
      expect(plain.headers.get('x-content-type-options')).toBe('nosniff');

      const gz = await nodeApp.request(`/docs/assets/${file}`, { headers: { 'accept-encoding': 'gzip, deflate, br' } });
      expect(gz.headers.get('content-encoding')).toBe('gzip');
      const compressed = Buffer.from(await gz.arrayBuffer());
      expect(compressed.length).toBeLessThan(onDisk.length / 2);
      expect(gunzipSync(compressed).equals(onDisk), file).toBe(true);

      const etag = plain.headers.get('etag')!;
      expect(etag).toMatch(/^"[0-9a-f]{20}"$/);
      const again = await nodeApp.request(`/docs/assets/${file}`, { headers: { 'if-none-match': etag } });
      expect(again.status).toBe(304);
    }
  });

  it('the start script points Swagger UI at the OpenAPI document, with the online validator off', async () => {
    const js = await (await nodeApp.request('/docs/init.js')).text();
    expect(js).toContain('url: "/api/v1/openapi.json"');
    expect(js).toContain('validatorUrl: null');
    expect(js).not.toMatch(/https?:\/\//);
  });

  it('answers 404 for anything else under /docs/assets, and never reads outside the package files', async () => {
    for (const path of [
      '/docs/assets/index.html',
      '/docs/assets/package.json',
      '/docs/assets/swagger-ui-bundle.js.map',
      '/docs/assets/..%2Fpackage.json',
      '/docs/assets/%2E%2E%2F%2E%2E%2Fpackage.json',
      '/docs/assets/toString',
      '/docs/assets/__proto__',
    ]) {
      const res = await nodeApp.request(path);
      expect(res.status, path).toBe(404);
      expect(await res.json()).toEqual({ success: false, error: 'Not found' });
    }
  });

  it('on Workers (no staticFiles: the platform serves the assets) the page is the same and the app itself answers 404 for the files', async () => {
    const page = await workerApp.request('/docs', { headers: { 'accept-encoding': 'gzip' } });
    expect(page.status).toBe(200);
    expect(await page.text()).toBe(await (await nodeApp.request('/docs')).text());
    const css = await workerApp.request('/docs/assets/swagger-ui.css', { headers: { 'accept-encoding': 'gzip' } });
    expect(css.status).toBe(404);
    expect(css.headers.get('content-encoding')).toBeNull();
  });

  it('the /docs page and its files are in the OpenAPI document with their media types', async () => {
    const doc = (await (await nodeApp.request('/api/v1/openapi.json')).json()) as { paths: Record<string, any> };
    expect(
      Object.keys(doc.paths)
        .filter((p) => p.startsWith('/docs'))
        .sort(),
    ).toEqual(['/docs', '/docs/assets/{file}', '/docs/init.js']);
    expect(Object.keys(doc.paths['/docs'].get.responses[200].content)).toEqual(['text/html']);
    expect(Object.keys(doc.paths['/docs/init.js'].get.responses[200].content)).toEqual(['text/javascript']);
    expect(Object.keys(doc.paths['/docs/assets/{file}'].get.responses[200].content).sort()).toEqual([
      'text/css',
      'text/javascript',
    ]);
  });
});

describe('/', () => {
  it('leads to the console and the API reference', async () => {
    const env = await createTestEnv({ backend: 'pglite' });
    try {
      const res = await env.app.request('/');
      expect(res.status).toBe(200);
      const html = await res.text();
      expect(html).toContain('<a href="/console">');
      expect(html).toContain('<a href="/docs">');
    } finally {
      await env.close();
    }
  });
});
