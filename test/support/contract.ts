/**
 * The contract check: every response the test suites receive is validated against the OpenAPI
 * document the app serves, operation by operation (method + path template) and status by
 * status, with ajv in JSON Schema 2020-12 mode. An undocumented operation or status, a JSON
 * body that does not match its schema, or a non-JSON answer of an undocumented media type
 * throws, failing the test that received it.
 *
 * The document is made once per process from createApp() (scripts/openapi-document.ts), not
 * from the app under test: a route added to that app only in a test is undocumented.
 */
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';

// ajv-formats is CommonJS; its default export differs between loaders
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (
  ajv: Ajv2020,
) => void;

type Doc = Record<string, any>;

export class ContractError extends Error {
  override name = 'ContractError';
}

interface Operation {
  method: string;
  template: string;
  regex: RegExp;
  literalSegments: number;
  responses: Record<string, { content?: Record<string, { schema?: unknown }> }>;
}

export interface ContractValidator {
  doc: Doc;
  /** throws ContractError when the response is not what the document says */
  check(res: { method: string; path: string; status: number; contentType: string | null; body: string }): void;
  /** how many responses passed check() */
  readonly checked: number;
}

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace'];

export function createValidator(doc: Doc): ContractValidator {
  const ajv = new Ajv2020({ strict: true, allErrors: true });
  addFormats(ajv);
  // OpenAPI's own annotation keywords inside schemas
  ajv.addKeyword('example');
  ajv.addKeyword('discriminator');
  ajv.addKeyword('xml');
  ajv.addKeyword('externalDocs');
  const compiled = new Map<unknown, ValidateFunction>();
  const compile = (schema: unknown) => {
    let fn = compiled.get(schema);
    if (!fn) {
      fn = ajv.compile(schema as object);
      compiled.set(schema, fn);
    }
    return fn;
  };

  const operations: Operation[] = [];
  for (const [template, item] of Object.entries(doc.paths as Record<string, Record<string, any>>)) {
    const segments = template.split('/');
    const regex = new RegExp(
      `^${segments.map((s) => (/^\{\w+\}$/.test(s) ? '[^/]*' : s.replace(/[.*+?^$()|[\]\\]/g, '\\$&'))).join('/')}$`,
    );
    for (const method of Object.keys(item).filter((m) => METHODS.includes(m))) {
      operations.push({
        method: method.toUpperCase(),
        template,
        regex,
        literalSegments: segments.filter((s) => !s.startsWith('{')).length,
        responses: item[method].responses ?? {},
      });
    }
  }
  // the most specific template first (/contests/{id}/entries before anything with more parameters)
  operations.sort((a, b) => b.literalSegments - a.literalSegments);

  let checked = 0;
  return {
    doc,
    get checked() {
      return checked;
    },
    check({ method, path, status, contentType, body }) {
      const raw = new URL(path, 'http://x').pathname;
      let pathname = raw;
      try {
        pathname = decodeURI(raw);
      } catch {
        /* a malformed escape in a hostile path: matched as sent */
      }
      const where = `${method} ${pathname} → ${status}`;
      // CORS preflights are answered by the CORS middleware for every /api/v1 path
      if (method === 'OPTIONS') return;
      const op = operations.find((o) => o.method === method && o.regex.test(pathname));
      const type = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
      // the short links' redirect (/r/{code}) is for people, not an operation of the API: it is not
      // in the document (docs/signups.md describes it), and its tests check its answers themselves
      if (!op && method === 'GET' && /^\/r\/[^/]*$/.test(pathname) && status === 302) return;
      if (!op) {
        // a path that names no operation: the documented catch-all `404 Not found`
        if (status === 404 && type === 'application/json' && body === '{"success":false,"error":"Not found"}') {
          checked++;
          return;
        }
        throw new ContractError(`${where}: undocumented operation (no path of the OpenAPI document matches)`);
      }
      const at = `${where} (${op.method} ${op.template})`;
      const response = op.responses[String(status)] ?? op.responses[`${String(status)[0]}XX`] ?? op.responses.default;
      if (!response) {
        throw new ContractError(
          `${at}: status ${status} is not documented (documented: ${Object.keys(op.responses).join(', ')})`,
        );
      }
      const content = response.content;
      if (!content || Object.keys(content).length === 0) {
        if (body !== '')
          throw new ContractError(`${at}: documented without a body, answered ${JSON.stringify(body.slice(0, 200))}`);
        checked++;
        return;
      }
      const media = content[type];
      if (!media) {
        throw new ContractError(
          `${at}: content type ${JSON.stringify(contentType)} is not documented (documented: ${Object.keys(content).join(', ')})`,
        );
      }
      if (type === 'application/json' || type.endsWith('+json')) {
        let value: unknown;
        try {
          value = JSON.parse(body);
        } catch {
          throw new ContractError(`${at}: the body is not JSON: ${JSON.stringify(body.slice(0, 200))}`);
        }
        if (media.schema !== undefined) {
          const validate = compile(media.schema);
          if (!validate(value)) {
            const errors = ajv.errorsText(validate.errors, { dataVar: 'body', separator: '; ' });
            throw new ContractError(
              `${at}: the body does not match the documented schema: ${errors}\nbody: ${body.slice(0, 1000)}`,
            );
          }
        }
      }
      checked++;
    },
  };
}

let shared: Promise<ContractValidator> | undefined;
/** The validator for the app's own document, made once per process. */
export function contractValidator(): Promise<ContractValidator> {
  // imported here, not at the top: the workerd suite uses createValidator() with the Worker's own document
  shared ??= import('../../scripts/openapi-document.js').then(async (m) => createValidator(await m.openApiDocument()));
  return shared;
}
