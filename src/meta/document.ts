/**
 * The options hono-openapi generates the OpenAPI 3.1 document with (src/meta/docs.routes.ts serves
 * it): document-level fields, security schemes, and the two routes that describe the API
 * itself. Every operation's own description sits next to its route (describeRoute).
 */
import { toJsonSchema } from '@valibot/to-json-schema';
import type { GenerateSpecOptions } from 'hono-openapi';
import * as v from 'valibot';
import { ErrorEnvelope, SECURITY_SCHEMES } from '../http/schemas.js';

const OPENAPI_PATH = '/api/v1/openapi.json';

const schemaOf = (s: v.GenericSchema) => {
  const { $schema: _, ...rest } = toJsonSchema(s) as Record<string, unknown>;
  return rest;
};

const TAGS = [
  ['Contests', 'Campaigns and tools of the team, their views'],
  ['Entries', 'People who joined a contest: create, read, update, disqualify, adjust points'],
  ['Bonus actions', 'Extra actions an entry completes for points'],
  ['Purchases', 'Purchases that earn points'],
  ['Analytics', 'Figures and leaderboards, computed in real time'],
  ['Instant win', 'Spin-to-win, scratch cards and other instant-win games: set-up, play, claim'],
  ['Webhooks', "Inbound webhooks (signed by the contest's own secrets) and their audit log"],
  ['Email confirmation', 'The link sent in confirmation emails'],
  ['Admin', "Teams, API keys and contest settings (the deployment's ADMIN_TOKEN)"],
  ['Widget', 'The embeddable instant-win widget and its demo page'],
  ['Meta', 'Health and this documentation'],
] as const;

export const documentOptions: Partial<GenerateSpecOptions> = {
  documentation: {
    openapi: '3.1.0',
    info: {
      title: 'Contest Engine API',
      version: '1.0.0',
      license: { name: 'MIT', identifier: 'MIT' },
      description:
        'Contests, entries, referrals, bonus actions, purchases, leaderboards, instant-win games and inbound webhooks.\n\n' +
        'Every JSON answer is an envelope: `{ "success": true, "data": ... }` (lists add `pagination`), or ' +
        '`{ "success": false, "error": "<message>" }` with the HTTP status. Clients may match on the messages. ' +
        '`/api/v1` routes take an API key in the `x-api-key` header: a public key (`pk_...`, safe in a web page) ' +
        'or a private key (`sk_...`, server side only); each operation says which. A path that names no ' +
        'operation answers `404` `{ "success": false, "error": "Not found" }`.',
    },
    // relative: the server that serves this document (npm start: http://localhost:8787)
    servers: [{ url: '/', description: 'the server that serves this document' }],
    tags: TAGS.map(([name, description]) => ({ name, description })),
    components: { securitySchemes: SECURITY_SCHEMES },
    paths: {
      [OPENAPI_PATH]: {
        get: {
          operationId: 'getOpenApiDocument',
          tags: ['Meta'],
          summary: 'This OpenAPI 3.1 document',
          security: [],
          responses: {
            200: {
              description: 'The document',
              content: {
                'application/json': {
                  schema: schemaOf(v.pipe(v.record(v.string(), v.unknown()), v.description('an OpenAPI 3.1 document'))),
                },
              },
            },
          },
        },
      },
      '/docs': {
        get: {
          operationId: 'getApiReference',
          tags: ['Meta'],
          summary: 'The API reference page, rendered from this document',
          security: [],
          responses: {
            200: { description: 'The page', content: { 'text/html': { schema: schemaOf(v.string()) } } },
          },
        },
      },
      '/docs/init.js': {
        get: {
          operationId: 'getApiReferenceScript',
          tags: ['Meta'],
          summary: 'The script that starts the reference page (its own file: the page allows no inline script)',
          security: [],
          responses: {
            200: { description: 'The script', content: { 'text/javascript': { schema: schemaOf(v.string()) } } },
          },
        },
      },
      '/docs/assets/{file}': {
        get: {
          operationId: 'getApiReferenceAsset',
          tags: ['Meta'],
          summary: "The reference page's own files (Swagger UI), served by this server: no CDN",
          security: [],
          parameters: [
            {
              name: 'file',
              in: 'path',
              required: true,
              schema: { type: 'string', enum: ['swagger-ui-bundle.js', 'swagger-ui.css'] },
            },
          ],
          responses: {
            200: {
              description: 'The file (ETag; gzip when asked, on Workers by the platform)',
              content: {
                'text/javascript': { schema: schemaOf(v.string()) },
                'text/css': { schema: schemaOf(v.string()) },
              },
            },
            304: { description: 'Not modified (If-None-Match)' },
            404: {
              description: 'No such file',
              content: { 'application/json': { schema: schemaOf(ErrorEnvelope) } },
            },
          },
        },
      },
    },
  },
  // /widget.js is an operation like the others (hono-openapi leaves out paths that look like files)
  excludeStaticFile: false,
  // every route declares its own 400 (with the error envelope) where it validates input
  defaultValidationErrorResponse: false,
};
