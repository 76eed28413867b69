/**
 * Stand-ins for the other tools' APIs, built from each provider's published reference, on one
 * local server (each provider's base URL points at it: KLAVIYO_API_URL, MAILCHIMP_API_URL,
 * HUBSPOT_API_URL). Every request is recorded and held to the documented shape it relies on
 * (written down below); one that breaks it is answered 400 `stand-in: …` and kept in
 * `violations`, which the tests expect empty. On demand the next answers are 429 with
 * Retry-After, 500, 401, or slow.
 *
 * The shapes (the parts this service uses):
 * - Klaviyo (developers.klaviyo.com, API revision 2025-10-15): every request carries
 *   `Authorization: Klaviyo-API-Key <private key pk_…>`, `revision: YYYY-MM-DD` and `accept:
 *   application/vnd.api+json`. `GET /api/lists/{id}`: 200 `{data: {type: "list", id, attributes:
 *   {name, …}}}`; an unknown list 404, a bad key 401, each `{errors: [{id, status, code, title,
 *   detail, source}]}`. Writes carry `content-type: application/vnd.api+json`. `POST
 *   /api/profile-import` `{data: {type: "profile", attributes: {email, first_name?, properties}}}`:
 *   201 (new) or 200, `{data: {type: "profile", id, attributes}}`. `POST
 *   /api/profile-subscription-bulk-create-jobs` `{data: {type:
 *   "profile-subscription-bulk-create-job", attributes: {profiles: {data: [{type: "profile",
 *   attributes: {email, subscriptions: {email: {marketing: {consent: "SUBSCRIBED"}}}}}]},
 *   historical_import}, relationships: {list: {data: {type: "list", id}}}}}`: 202, no body. `POST
 *   /api/lists/{id}/relationships/profiles` `{data: [{type: "profile", id}]}`: 204. `POST
 *   /api/data-privacy-deletion-jobs` `{data: {type: "data-privacy-deletion-job", attributes:
 *   {profile: {data: {type: "profile", attributes: {email}}}}}}`: 202, no body. `POST /api/events`
 *   `{data: {type: "event", attributes: {properties (an object), time?, unique_id?, metric: {data:
 *   {type: "metric", attributes: {name}}}, profile: {data: {type: "profile", attributes: {email}}}}}}`:
 *   202, no body (the profile is made when missing; a repeated unique_id is one event). `POST
 *   /api/profile-bulk-import-jobs` `{data: {type: "profile-bulk-import-job", attributes: {profiles:
 *   {data: [profile, …at most 10,000]}}, relationships?: {lists: {data: [{type: "list", id}]}}}}`:
 *   202 `{data: {type: "profile-bulk-import-job", id, attributes: {status: "queued", …}}}` (the
 *   stand-in imports at once; a property set to null is refused: the bulk import cannot clear a
 *   field); at most 1,000 profiles in a subscription job.
 * - Mailchimp Marketing API 3.0 (mailchimp.com/developer): `Authorization: Basic` of any user and
 *   the key. `GET /3.0/lists/{list_id}` 200 `{id, name, …}`; `GET /3.0/lists/{list_id}/merge-fields`
 *   200 `{merge_fields: [{merge_id, tag, name, type, …}], list_id, total_items}`; `POST` of one
 *   `{tag (at most 10 of A-Z 0-9 _), name, type (text, number, url, …), required, public}` 200;
 *   errors `application/problem+json` `{type, title, status, detail, instance}`. `PUT
 *   /3.0/lists/{list_id}/members/{subscriber_hash}` (the MD5 of the lower-cased address; the API
 *   takes the address too, this service always sends the hash, and the stand-in holds it to that) `{email_address, status_if_new (subscribed, unsubscribed, cleaned, pending,
 *   transactional), status?, merge_fields}`: 200 the member. `POST
 *   /3.0/lists/{list_id}/members/{subscriber_hash}/actions/delete-permanent` (no body): 204; 404
 *   for a member it does not have. `POST /3.0/lists/{list_id}/members/{subscriber_hash}/events`
 *   `{name (2-30 of letters, digits, _ and -), properties? (string values), is_syncing?,
 *   occurred_at? (ISO 8601)}`: 204; `POST …/members/{subscriber_hash}/tags` `{tags: [{name (at most
 *   100 characters), status: "active" | "inactive"}], is_syncing?}`: 204; each 404 for a member it
 *   does not have. `POST /3.0/batches` `{operations: [{method, path (relative to /3.0), params?,
 *   body? (a JSON string), operation_id?}]}`: 200 `{id, status: "pending", total_operations, …}`
 *   (the stand-in runs the member PUTs at once, held to the same shape as above).
 * - HubSpot CRM v3 (developers.hubspot.com): `Authorization: Bearer <token>`. `POST
 *   /crm/v3/properties/contacts/groups` `{name, label}` 201, or 409 when it exists; `GET
 *   /crm/v3/properties/contacts` 200 `{results: [{name, label, type, fieldType, groupName, …}]}`;
 *   `POST /crm/v3/properties/contacts` `{name, label, type (string, number, …), fieldType (text,
 *   number, …), groupName}` 201, or 409; errors `{status: "error", message, correlationId, category}`.
 *   `POST /crm/v3/objects/contacts/batch/upsert` `{inputs: [{idProperty: "email", id, properties:
 *   {…strings}}]}`: 200 `{status: "COMPLETE", results: [{id, properties, new}]}`. `POST
 *   /crm/v3/objects/contacts/gdpr-delete` `{idProperty: "email", objectId}`: 204; 404 for a contact
 *   it does not have.
 */
import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { STAND_IN_CONNECTIONS } from './connections.js';

export { STAND_IN_CONNECTIONS };

export interface Captured {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: unknown;
}

type Fault = { status: 429; retryAfter: number } | { status: 500 } | { status: 401 } | { slowMs: number };

export interface ProviderStandIns {
  url: string;
  requests: Captured[];
  violations: string[];
  /** valid credentials and existing targets */
  klaviyo: {
    keys: Set<string>;
    lists: Map<string, string>;
    /** profiles by email (their attributes), the emails subscribed with consent, list members (profile ids) */
    profiles: Map<string, { id: string; attributes: Record<string, unknown> }>;
    subscribed: Set<string>;
    members: Set<string>;
    /** events by unique_id (or a made one): metric name, email, properties */
    events: Map<string, { metric: string; email: string; properties: Record<string, unknown> }>;
    /** bulk import jobs received */
    bulkJobs: number;
  };
  mailchimp: {
    keys: Set<string>;
    audiences: Map<string, string>;
    mergeFields: Map<string, Map<string, unknown>>;
    /** members by lower-cased email */
    members: Map<string, { status: string; merge_fields: Record<string, unknown> }>;
    /** batches received */
    batches: number;
    /** member events and active tags, by lower-cased email */
    events: { email: string; name: string; properties: Record<string, string> }[];
    tags: Map<string, Set<string>>;
  };
  hubspot: {
    tokens: Set<string>;
    groups: Set<string>;
    properties: Map<string, unknown>;
    /** contacts by email: their properties */
    contacts: Map<string, Record<string, string>>;
  };
  /** the next `times` answers of a provider (by path prefix) */
  fail(prefix: '/api/' | '/3.0/' | '/crm/', fault: Fault, times?: number): void;
  close(): Promise<void>;
}

const JSON_API = 'application/vnd.api+json';

export async function startProviderStandIns(): Promise<ProviderStandIns> {
  const requests: Captured[] = [];
  const violations: string[] = [];
  const faults: { prefix: string; fault: Fault; left: number }[] = [];
  const klaviyo = {
    keys: new Set<string>(),
    lists: new Map<string, string>(),
    profiles: new Map<string, { id: string; attributes: Record<string, unknown> }>(),
    subscribed: new Set<string>(),
    members: new Set<string>(),
    events: new Map<string, { metric: string; email: string; properties: Record<string, unknown> }>(),
    bulkJobs: 0,
  };
  const mailchimp = {
    keys: new Set<string>(),
    audiences: new Map<string, string>(),
    mergeFields: new Map<string, Map<string, unknown>>(),
    members: new Map<string, { status: string; merge_fields: Record<string, unknown> }>(),
    events: [] as { email: string; name: string; properties: Record<string, string> }[],
    tags: new Map<string, Set<string>>(),
    batches: 0,
  };
  const hubspot = {
    tokens: new Set<string>(),
    groups: new Set<string>(),
    properties: new Map<string, unknown>([['email', { name: 'email', type: 'string', fieldType: 'text' }]]),
    contacts: new Map<string, Record<string, string>>(),
  };

  const read = (req: IncomingMessage) =>
    new Promise<string>((resolve) => {
      let s = '';
      req.on('data', (d) => (s += d));
      req.on('end', () => resolve(s));
    });

  const server: Server = createServer(async (req, res) => {
    const raw = await read(req);
    const url = new URL(req.url ?? '/', 'http://stand-in');
    const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)]));
    let body: unknown = null;
    if (raw) {
      try {
        body = JSON.parse(raw);
      } catch {
        body = raw;
      }
    }
    requests.push({ method: req.method ?? '', path: url.pathname + url.search, headers, body });
    const send = (status: number, json: unknown, type = 'application/json', extra: Record<string, string> = {}) => {
      res.writeHead(status, { 'content-type': type, ...extra });
      res.end(json === undefined ? '' : JSON.stringify(json));
    };
    const broken = (why: string) => {
      violations.push(`${req.method} ${url.pathname}: ${why}`);
      send(400, { error: `stand-in: ${why}` });
    };

    // what the stand-ins hold, for tests that cannot reach this process's memory (workerd's)
    if (req.method === 'GET' && url.pathname === '/__state') {
      requests.pop();
      const plain = (m: Map<string, unknown>) => Object.fromEntries(m);
      return send(200, {
        requests,
        violations,
        klaviyo: {
          profiles: plain(klaviyo.profiles),
          subscribed: [...klaviyo.subscribed],
          members: [...klaviyo.members],
          events: [...klaviyo.events.values()],
        },
        mailchimp: { members: plain(mailchimp.members), events: mailchimp.events },
        hubspot: { contacts: plain(hubspot.contacts) },
      });
    }
    const f = faults.find((x) => url.pathname.startsWith(x.prefix) && x.left > 0);
    if (f) {
      f.left--;
      if ('slowMs' in f.fault) await new Promise((r) => setTimeout(r, (f.fault as { slowMs: number }).slowMs));
      else if (f.fault.status === 429)
        return send(429, { error: 'rate limited' }, 'application/json', { 'retry-after': String(f.fault.retryAfter) });
      else return send(f.fault.status, { error: `fault ${f.fault.status}` });
    }

    // ---- Klaviyo
    if (url.pathname.startsWith('/api/')) {
      const auth = /^Klaviyo-API-Key (pk_[A-Za-z0-9]+)$/.exec(headers.authorization ?? '');
      if (!auth) return broken('Authorization must be "Klaviyo-API-Key pk_…"');
      if (!/^\d{4}-\d{2}-\d{2}$/.test(headers.revision ?? '')) return broken('revision header YYYY-MM-DD required');
      if (headers.accept !== JSON_API) return broken(`accept must be ${JSON_API}`);
      const kErr = (status: number, code: string, title: string, detail: string) =>
        send(
          status,
          { errors: [{ id: crypto.randomUUID(), status, code, title, detail, source: { pointer: '/data/' } }] },
          JSON_API,
        );
      if (!klaviyo.keys.has(auth[1]!))
        return kErr(
          401,
          'not_authenticated',
          'Authentication credentials were not provided.',
          'Missing or invalid private key.',
        );
      const list = /^\/api\/lists\/([^/]+)$/.exec(url.pathname);
      if (req.method === 'GET' && list) {
        const name = klaviyo.lists.get(decodeURIComponent(list[1]!));
        if (!name) return kErr(404, 'not_found', 'Not found.', `A list with id ${list[1]} does not exist.`);
        return send(
          200,
          { data: { type: 'list', id: list[1], attributes: { name, opt_in_process: 'single_opt_in' } } },
          JSON_API,
        );
      }
      if (req.method === 'POST' && headers['content-type'] !== JSON_API)
        return broken(`content-type must be ${JSON_API}`);
      if (req.method === 'POST' && url.pathname === '/api/profile-import') {
        const d = (body as { data?: { type?: unknown; attributes?: Record<string, unknown> } })?.data;
        if (d?.type !== 'profile' || typeof d.attributes?.email !== 'string')
          return broken('profile-import needs data.type "profile" and attributes.email');
        const props = d.attributes.properties;
        if (props !== undefined && (typeof props !== 'object' || props === null || Array.isArray(props)))
          return broken('attributes.properties must be an object');
        const email = d.attributes.email;
        const old = klaviyo.profiles.get(email);
        const profile = {
          id: old?.id ?? `01K${Math.random().toString(36).slice(2, 12).toUpperCase()}`,
          attributes: { ...old?.attributes, ...d.attributes },
        };
        klaviyo.profiles.set(email, profile);
        return send(
          old ? 200 : 201,
          { data: { type: 'profile', id: profile.id, attributes: profile.attributes } },
          JSON_API,
        );
      }
      if (req.method === 'POST' && url.pathname === '/api/profile-subscription-bulk-create-jobs') {
        const d = (body as { data?: any })?.data;
        const profiles = d?.attributes?.profiles?.data;
        const listId = d?.relationships?.list?.data;
        if (d?.type !== 'profile-subscription-bulk-create-job' || !Array.isArray(profiles) || listId?.type !== 'list')
          return broken(
            'subscription job: type, attributes.profiles.data (at most 1,000) and relationships.list.data required',
          );
        if (!klaviyo.lists.has(listId.id))
          return kErr(404, 'not_found', 'Not found.', `A list with id ${listId.id} does not exist.`);
        for (const p of profiles) {
          if (
            p?.type !== 'profile' ||
            p.attributes?.subscriptions?.email?.marketing?.consent !== 'SUBSCRIBED' ||
            typeof p.attributes.email !== 'string'
          )
            return broken('each profile needs email and subscriptions.email.marketing.consent SUBSCRIBED');
          klaviyo.subscribed.add(p.attributes.email);
        }
        res.writeHead(202);
        return res.end();
      }
      if (req.method === 'POST' && url.pathname === '/api/data-privacy-deletion-jobs') {
        const d = (body as { data?: any })?.data;
        const email = d?.attributes?.profile?.data?.attributes?.email;
        if (
          d?.type !== 'data-privacy-deletion-job' ||
          d.attributes.profile.data.type !== 'profile' ||
          typeof email !== 'string'
        )
          return broken('deletion job: data.type and attributes.profile.data {type: "profile", attributes: {email}}');
        klaviyo.profiles.delete(email);
        klaviyo.subscribed.delete(email);
        res.writeHead(202);
        return res.end();
      }
      if (req.method === 'POST' && url.pathname === '/api/profile-bulk-import-jobs') {
        const d = (body as { data?: any })?.data;
        const profiles = d?.attributes?.profiles?.data;
        if (d?.type !== 'profile-bulk-import-job' || !Array.isArray(profiles) || profiles.length === 0)
          return broken('bulk import: data.type "profile-bulk-import-job" and attributes.profiles.data required');
        if (profiles.length > 10_000) return broken('bulk import: at most 10,000 profiles');
        const lists = d.relationships?.lists?.data;
        if (lists !== undefined && (!Array.isArray(lists) || lists.some((l: any) => l?.type !== 'list')))
          return broken('bulk import: relationships.lists.data is a list of {type: "list", id}');
        for (const l of lists ?? [])
          if (!klaviyo.lists.has(l.id))
            return kErr(404, 'not_found', 'Not found.', `A list with id ${l.id} does not exist.`);
        for (const p of profiles) {
          if (p?.type !== 'profile' || typeof p.attributes?.email !== 'string')
            return broken('bulk import: each profile {type: "profile", attributes: {email, …}}');
          if (Object.values(p.attributes.properties ?? {}).some((v) => v === null))
            return broken('bulk import: a property set to null (the bulk import cannot clear a field)');
          const old = klaviyo.profiles.get(p.attributes.email);
          const id = old?.id ?? `01K${Math.random().toString(36).slice(2, 12).toUpperCase()}`;
          klaviyo.profiles.set(p.attributes.email, { id, attributes: { ...old?.attributes, ...p.attributes } });
          if (lists?.length) klaviyo.members.add(id);
        }
        klaviyo.bulkJobs++;
        return send(
          202,
          {
            data: {
              type: 'profile-bulk-import-job',
              id: crypto.randomUUID(),
              attributes: { status: 'queued', total_count: profiles.length },
            },
          },
          JSON_API,
        );
      }
      if (req.method === 'POST' && url.pathname === '/api/events') {
        const d = (body as { data?: any })?.data;
        const a = d?.attributes;
        const metric = a?.metric?.data;
        const profile = a?.profile?.data;
        if (d?.type !== 'event' || !a) return broken('event: data.type "event" and attributes required');
        if (typeof a.properties !== 'object' || a.properties === null || Array.isArray(a.properties))
          return broken('event: attributes.properties (an object) is required');
        if (metric?.type !== 'metric' || typeof metric.attributes?.name !== 'string' || !metric.attributes.name)
          return broken('event: attributes.metric.data {type: "metric", attributes: {name}} required');
        if (profile?.type !== 'profile' || typeof profile.attributes?.email !== 'string')
          return broken('event: attributes.profile.data {type: "profile", attributes: {email}} required');
        if (a.time !== undefined && Number.isNaN(Date.parse(a.time))) return broken('event: time must be ISO 8601');
        if (a.unique_id !== undefined && typeof a.unique_id !== 'string') return broken('event: unique_id is a string');
        const email = profile.attributes.email as string;
        if (!klaviyo.profiles.has(email))
          klaviyo.profiles.set(email, {
            id: `01K${Math.random().toString(36).slice(2, 12).toUpperCase()}`,
            attributes: { email },
          });
        klaviyo.events.set(a.unique_id ?? crypto.randomUUID(), {
          metric: metric.attributes.name,
          email,
          properties: a.properties,
        });
        res.writeHead(202);
        return res.end();
      }
      const rel = /^\/api\/lists\/([^/]+)\/relationships\/profiles$/.exec(url.pathname);
      if (req.method === 'POST' && rel) {
        const data = (body as { data?: { type?: string; id?: string }[] })?.data;
        if (!Array.isArray(data) || data.some((x) => x?.type !== 'profile' || typeof x.id !== 'string'))
          return broken('list relationship needs data: [{type: "profile", id}]');
        if (!klaviyo.lists.has(decodeURIComponent(rel[1]!)))
          return kErr(404, 'not_found', 'Not found.', 'No such list.');
        for (const x of data) klaviyo.members.add(x.id!);
        res.writeHead(204);
        return res.end();
      }
      return broken('no such Klaviyo operation in the stand-in');
    }

    // ---- Mailchimp
    if (url.pathname.startsWith('/3.0/')) {
      const basic = /^Basic (.+)$/.exec(headers.authorization ?? '');
      const key = basic ? (Buffer.from(basic[1]!, 'base64').toString().split(':')[1] ?? '') : '';
      if (!basic) return broken('Authorization must be HTTP Basic with the API key');
      const problem = (status: number, title: string, detail: string) =>
        send(
          status,
          {
            type: 'https://mailchimp.com/developer/marketing/docs/errors/',
            title,
            status,
            detail,
            instance: crypto.randomUUID(),
          },
          'application/problem+json',
        );
      if (!mailchimp.keys.has(key))
        return problem(
          401,
          'API Key Invalid',
          "Your API key may be invalid, or you've attempted to access the wrong datacenter.",
        );
      const gone = /^\/3\.0\/lists\/([^/]+)\/members\/([^/]+)\/actions\/delete-permanent$/.exec(url.pathname);
      if (gone && req.method === 'POST') {
        if (!/^[0-9a-f]{32}$/.test(gone[2]!)) return broken('subscriber_hash: the MD5 of the lower-cased address');
        const email = [...mailchimp.members.keys()].find((e) => createHash('md5').update(e).digest('hex') === gone[2]);
        if (!email) return problem(404, 'Resource Not Found', 'The requested resource could not be found.');
        mailchimp.members.delete(email);
        res.writeHead(204);
        return res.end();
      }
      const sub = /^\/3\.0\/lists\/([^/]+)\/members\/([^/]+)\/(events|tags)$/.exec(url.pathname);
      if (sub && req.method === 'POST') {
        if (headers['content-type'] !== 'application/json') return broken('content-type application/json required');
        if (!/^[0-9a-f]{32}$/.test(sub[2]!)) return broken('subscriber_hash: the MD5 of the lower-cased address');
        const email = [...mailchimp.members.keys()].find((e) => createHash('md5').update(e).digest('hex') === sub[2]);
        if (!mailchimp.audiences.has(decodeURIComponent(sub[1]!)) || !email)
          return problem(404, 'Resource Not Found', 'The requested resource could not be found.');
        if (sub[3] === 'events') {
          const b = body as { name?: unknown; properties?: unknown; occurred_at?: unknown; is_syncing?: unknown };
          if (typeof b?.name !== 'string' || !/^[A-Za-z0-9_-]{2,30}$/.test(b.name))
            return broken('event name: 2-30 of letters, digits, _ and -');
          if (
            b.properties !== undefined &&
            (typeof b.properties !== 'object' ||
              b.properties === null ||
              Object.values(b.properties).some((v) => typeof v !== 'string'))
          )
            return broken('event properties: an object of strings');
          if (b.occurred_at !== undefined && Number.isNaN(Date.parse(String(b.occurred_at))))
            return broken('occurred_at must be ISO 8601');
          mailchimp.events.push({ email, name: b.name, properties: (b.properties ?? {}) as Record<string, string> });
        } else {
          const tags = (body as { tags?: unknown })?.tags;
          if (!Array.isArray(tags) || tags.length === 0) return broken('tags: a list of {name, status}');
          const have = mailchimp.tags.get(email) ?? new Set<string>();
          for (const t of tags as { name?: unknown; status?: unknown }[]) {
            if (typeof t?.name !== 'string' || !t.name || t.name.length > 100)
              return broken('tag name: 1 to 100 characters');
            if (t.status !== 'active' && t.status !== 'inactive') return broken('tag status: active or inactive');
            if (t.status === 'active') have.add(t.name);
            else have.delete(t.name);
          }
          mailchimp.tags.set(email, have);
        }
        res.writeHead(204);
        return res.end();
      }
      /** A member's PUT (alone, or as an operation of a batch): the answer, or what breaks the shape. */
      const putMember = (
        path: string,
        raw: unknown,
      ): { broken: string } | { status: number; json: Record<string, unknown> } => {
        const member = /^\/3\.0\/lists\/([^/]+)\/members\/([^/]+)$/.exec(path)!;
        if (!mailchimp.audiences.has(decodeURIComponent(member[1]!)))
          return { status: 404, json: { title: 'Resource Not Found' } };
        const b = raw as { email_address?: unknown; status_if_new?: unknown; status?: unknown; merge_fields?: unknown };
        const statuses = ['subscribed', 'unsubscribed', 'cleaned', 'pending', 'transactional'];
        if (typeof b?.email_address !== 'string') return { broken: 'email_address required' };
        if (member[2] !== createHash('md5').update(b.email_address.toLowerCase()).digest('hex'))
          return { broken: 'subscriber_hash must be the MD5 of the lower-cased address' };
        if (!statuses.includes(String(b.status_if_new))) return { broken: 'status_if_new must be a documented status' };
        if (b.status !== undefined && !statuses.includes(String(b.status)))
          return { broken: 'status must be a documented status' };
        if (b.merge_fields !== undefined && (typeof b.merge_fields !== 'object' || b.merge_fields === null))
          return { broken: 'merge_fields must be an object' };
        const email = b.email_address.toLowerCase();
        const old = mailchimp.members.get(email);
        const status = String(b.status ?? old?.status ?? b.status_if_new);
        const made = { status, merge_fields: { ...old?.merge_fields, ...(b.merge_fields as Record<string, unknown>) } };
        mailchimp.members.set(email, made);
        return { status: 200, json: { id: email, email_address: b.email_address, ...made } };
      };
      if (/^\/3\.0\/lists\/[^/]+\/members\/[^/]+$/.test(url.pathname) && req.method === 'PUT') {
        const r = putMember(url.pathname, body);
        if ('broken' in r) return broken(r.broken);
        if (r.status === 404) return problem(404, 'Resource Not Found', 'The requested resource could not be found.');
        return send(r.status, r.json);
      }
      if (url.pathname === '/3.0/batches' && req.method === 'POST') {
        if (headers['content-type'] !== 'application/json') return broken('content-type application/json required');
        const ops = (body as { operations?: unknown })?.operations;
        if (!Array.isArray(ops) || ops.length === 0) return broken('batch: operations, a list of {method, path, body}');
        for (const op of ops as { method?: unknown; path?: unknown; body?: unknown; operation_id?: unknown }[]) {
          if (!['GET', 'POST', 'PUT', 'PATCH', 'DELETE'].includes(String(op?.method)))
            return broken('batch operation: method GET, POST, PUT, PATCH or DELETE');
          if (typeof op.path !== 'string' || !op.path.startsWith('/')) return broken('batch operation: path');
          if (op.body !== undefined && typeof op.body !== 'string')
            return broken('batch operation: body is a JSON string');
          if (op.operation_id !== undefined && typeof op.operation_id !== 'string')
            return broken('batch operation: operation_id is a string');
          if (op.method !== 'PUT' || !/^\/lists\/[^/]+\/members\/[^/]+$/.test(op.path))
            return broken('batch operation: the stand-in runs member PUTs only');
          const r = putMember(`/3.0${op.path}`, JSON.parse(String(op.body ?? '{}')));
          if ('broken' in r) return broken(`batch operation: ${r.broken}`);
        }
        mailchimp.batches++;
        return send(200, {
          id: Math.random().toString(36).slice(2, 12),
          status: 'pending',
          total_operations: ops.length,
          finished_operations: 0,
          errored_operations: 0,
          submitted_at: new Date().toISOString(),
        });
      }
      const m = /^\/3\.0\/lists\/([^/]+)(\/merge-fields)?$/.exec(url.pathname);
      const audience = m ? decodeURIComponent(m[1]!) : '';
      if (!m || !mailchimp.audiences.has(audience))
        return problem(404, 'Resource Not Found', 'The requested resource could not be found.');
      const fields = mailchimp.mergeFields.get(audience) ?? new Map<string, unknown>();
      mailchimp.mergeFields.set(audience, fields);
      if (!m[2] && req.method === 'GET') return send(200, { id: audience, name: mailchimp.audiences.get(audience) });
      if (m[2] && req.method === 'GET')
        return send(200, { merge_fields: [...fields.values()], list_id: audience, total_items: fields.size });
      if (m[2] && req.method === 'POST') {
        const b = body as { tag?: unknown; name?: unknown; type?: unknown };
        if (typeof b?.tag !== 'string' || !/^[A-Z0-9_]{1,10}$/.test(b.tag))
          return broken('merge field tag: at most 10 of A-Z 0-9 _');
        if (typeof b.name !== 'string' || !b.name) return broken('merge field name required');
        if (
          ![
            'text',
            'number',
            'url',
            'date',
            'phone',
            'address',
            'imageurl',
            'radio',
            'dropdown',
            'birthday',
            'zip',
          ].includes(String(b.type))
        )
          return broken('merge field type is not one of the documented ones');
        if (headers['content-type'] !== 'application/json') return broken('content-type application/json required');
        if (fields.has(b.tag))
          return problem(
            400,
            'Invalid Resource',
            `A Merge Field with the tag "${b.tag}" already exists for this list.`,
          );
        const made = { merge_id: fields.size + 1, tag: b.tag, name: b.name, type: b.type, list_id: audience };
        fields.set(b.tag, made);
        return send(200, made);
      }
      return broken('no such Mailchimp operation in the stand-in');
    }

    // ---- HubSpot
    if (url.pathname.startsWith('/crm/')) {
      const bearer = /^Bearer (.+)$/.exec(headers.authorization ?? '');
      if (!bearer) return broken('Authorization must be "Bearer <token>"');
      const hErr = (status: number, category: string, message: string) =>
        send(status, { status: 'error', message, correlationId: crypto.randomUUID(), category });
      if (!hubspot.tokens.has(bearer[1]!))
        return hErr(401, 'INVALID_AUTHENTICATION', 'Authentication credentials not found.');
      if (url.pathname === '/crm/v3/properties/contacts/groups' && req.method === 'POST') {
        const b = body as { name?: unknown; label?: unknown };
        if (typeof b?.name !== 'string' || typeof b.label !== 'string') return broken('group needs name and label');
        if (hubspot.groups.has(b.name))
          return hErr(409, 'OBJECT_ALREADY_EXISTS', `A property group named ${b.name} already exists.`);
        hubspot.groups.add(b.name);
        return send(201, { name: b.name, label: b.label, displayOrder: -1, archived: false });
      }
      if (url.pathname === '/crm/v3/properties/contacts' && req.method === 'GET')
        return send(200, { results: [...hubspot.properties.values()] });
      if (url.pathname === '/crm/v3/properties/contacts' && req.method === 'POST') {
        const b = body as { name?: unknown; label?: unknown; type?: unknown; fieldType?: unknown; groupName?: unknown };
        if (typeof b?.name !== 'string' || !/^[a-z][a-z0-9_]*$/.test(b.name))
          return broken('property name: lowercase, digits, _');
        if (typeof b.label !== 'string') return broken('property label required');
        if (!['string', 'number', 'date', 'datetime', 'enumeration', 'bool'].includes(String(b.type)))
          return broken('property type');
        if (
          ![
            'text',
            'textarea',
            'number',
            'date',
            'select',
            'radio',
            'checkbox',
            'booleancheckbox',
            'file',
            'html',
            'phonenumber',
          ].includes(String(b.fieldType))
        )
          return broken('property fieldType');
        if (typeof b.groupName !== 'string' || !hubspot.groups.has(b.groupName))
          return broken('groupName must name an existing group');
        if (hubspot.properties.has(b.name))
          return hErr(409, 'OBJECT_ALREADY_EXISTS', `Property ${b.name} already exists.`);
        hubspot.properties.set(b.name, b);
        return send(201, { ...b, archived: false });
      }
      if (url.pathname === '/crm/v3/objects/contacts/gdpr-delete' && req.method === 'POST') {
        const b = body as { idProperty?: unknown; objectId?: unknown };
        if (b?.idProperty !== 'email' || typeof b.objectId !== 'string')
          return broken('gdpr-delete: idProperty "email" and objectId');
        if (!hubspot.contacts.delete(b.objectId)) return hErr(404, 'OBJECT_NOT_FOUND', 'Object not found.');
        res.writeHead(204);
        return res.end();
      }
      if (url.pathname === '/crm/v3/objects/contacts/batch/upsert' && req.method === 'POST') {
        const inputs = (body as { inputs?: unknown })?.inputs;
        if (!Array.isArray(inputs) || inputs.length === 0 || inputs.length > 100)
          return broken('inputs: 1 to 100 objects');
        const results = [];
        for (const x of inputs as { idProperty?: unknown; id?: unknown; properties?: Record<string, unknown> }[]) {
          if (x.idProperty !== 'email' || typeof x.id !== 'string') return broken('idProperty "email" and id required');
          if (!x.properties || Object.values(x.properties).some((v) => typeof v !== 'string'))
            return broken('properties are strings');
          for (const k of Object.keys(x.properties))
            if (!hubspot.properties.has(k) && k !== 'firstname') return broken(`property ${k} does not exist`);
          const old = hubspot.contacts.get(x.id);
          hubspot.contacts.set(x.id, { ...old, ...(x.properties as Record<string, string>) });
          results.push({ id: String(hubspot.contacts.size), properties: x.properties, new: !old });
        }
        return send(200, { status: 'COMPLETE', results });
      }
      return broken('no such HubSpot operation in the stand-in');
    }
    return broken('no provider at this path');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    violations,
    klaviyo,
    mailchimp,
    hubspot,
    fail(prefix, fault, times = 1) {
      faults.push({ prefix, fault, left: times });
    },
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

/** Stand-ins that know STAND_IN_CONNECTIONS (Klaviyo's list "Newsletter", Mailchimp's audience "Customers"). */
export async function seededStandIns(): Promise<ProviderStandIns> {
  const stand = await startProviderStandIns();
  stand.klaviyo.keys.add(STAND_IN_CONNECTIONS.klaviyo.credentials.apiKey);
  stand.klaviyo.lists.set(STAND_IN_CONNECTIONS.klaviyo.target.listId, 'Newsletter');
  stand.mailchimp.keys.add(STAND_IN_CONNECTIONS.mailchimp.credentials.apiKey);
  stand.mailchimp.audiences.set(STAND_IN_CONNECTIONS.mailchimp.target.audienceId, 'Customers');
  stand.hubspot.tokens.add(STAND_IN_CONNECTIONS.hubspot.credentials.accessToken);
  return stand;
}

/** The app's integrations configuration pointing every provider at the stand-ins (a 2 s timeout). */
export const standInConfig = (stand: ProviderStandIns, key = Buffer.alloc(32, 7).toString('base64')) => ({
  key,
  urls: { klaviyo: stand.url, mailchimp: stand.url, hubspot: stand.url },
  timeoutMs: 2000,
});
