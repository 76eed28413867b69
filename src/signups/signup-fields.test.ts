/**
 * A contest's own sign-up fields (`signupFields`): the setting's bounds, the widget's config, and
 * a sign-up's customFields checked against them in the sign-up's statement (400 naming the field,
 * nothing written), kept as the entry's customFieldData.
 */
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, type TeamFixture, type TestEnv } from '../../test/support/harness.js';
import { queryOne } from '../db/client.js';
import { EXPORT_HEADER } from '../entries/data-out.js';

let env: TestEnv;
let t: TeamFixture;
beforeAll(async () => {
  env = await createTestEnv();
  t = await env.team('Fields');
});
afterAll(() => env.close());

const FIELDS = [
  { key: 'company', label: 'Company', type: 'text', required: true },
  { key: 'workEmail', label: 'Work email', type: 'email' },
  { key: 'size', label: 'Team size', type: 'select', options: ['1-10', '11-50', '51+'], required: true },
  { key: 'terms', label: 'I accept the terms', type: 'checkbox', required: true },
  { key: 'birthday', label: 'Birthday', type: 'date' },
];
const GOOD = { company: 'Acme', size: '11-50', terms: true };

const patch = (id: string, body: Record<string, unknown>) =>
  env.request('PATCH', `/api/v1/contests/${id}`, { key: t.privateKey, body });
const signup = (id: string, body: Record<string, unknown>) =>
  env.request('POST', `/api/v1/contests/${id}/signup`, { body });
const entries = async (id: string) =>
  Number((await queryOne<{ n: string }>(env.db, sql`select count(*) as n from entries where contest_id = ${id}`))!.n);

async function contest(extra: Record<string, unknown> = {}) {
  const c = await env.contest(t.teamId);
  const r = await patch(c.id, { publicSignup: true, signupFields: FIELDS, ...extra });
  expect(r.status, r.text).toBe(200);
  return c.id;
}

describe('signupFields, the setting', () => {
  it('is kept in order with required defaulting to false, shown in the settings and the widget config; [] by default', async () => {
    const bare = await env.contest(t.teamId);
    const before = await env.request('GET', `/api/v1/contests/${bare.id}/settings`, { key: t.privateKey });
    expect(before.body.data.signupFields).toEqual([]);
    const id = await contest();
    const expected = FIELDS.map((f) => ({ required: false, ...f }));
    const s = await env.request('GET', `/api/v1/contests/${id}/settings`, { key: t.privateKey });
    expect(s.body.data.signupFields).toEqual(expected);
    const config = await env.request('GET', `/api/v1/contests/${id}/signup`);
    expect(config.status, config.text).toBe(200);
    expect(config.body.data.signupFields).toEqual(expected);
  });

  it('refuses a bad list with a 400 naming what is wrong, and changes nothing', async () => {
    const id = await contest();
    const field = (f: Record<string, unknown>) => [{ key: 'k', label: 'K', type: 'text', ...f }];
    const cases: [unknown, string][] = [
      ['company', 'signupFields must be a list of {key, label, type, required, options}'],
      [
        Array.from({ length: 11 }, (_, i) => ({ key: `k${i}`, label: 'K', type: 'text' })),
        'signupFields must have at most 10 fields',
      ],
      [
        field({ key: '1st' }),
        'signupFields key must start with a letter, then letters, digits or _ (at most 40 characters)',
      ],
      [
        field({ key: 'a'.repeat(41) }),
        'signupFields key must start with a letter, then letters, digits or _ (at most 40 characters)',
      ],
      [field({ label: '  ' }), 'signupFields label must be text of 1 to 100 characters'],
      [field({ label: 'x'.repeat(101) }), 'signupFields label must be text of 1 to 100 characters'],
      [field({ label: 'a\u0007b' }), 'signupFields label must not contain control characters'],
      [field({ type: 'file' }), 'signupFields type must be one of text, email, select, checkbox, date'],
      [field({ required: 'yes' }), 'signupFields required must be a boolean'],
      [field({ type: 'select' }), 'signupFields options are given for a select, and only for one'],
      [field({ options: ['a'] }), 'signupFields options are given for a select, and only for one'],
      [
        field({ type: 'select', options: [] }),
        'signupFields options must be 1 to 20 different choices of 1 to 100 characters',
      ],
      [
        field({ type: 'select', options: ['a', 'a'] }),
        'signupFields options must be 1 to 20 different choices of 1 to 100 characters',
      ],
      [field({ extra: 1 }), 'signupFields must be a list of {key, label, type, required, options}'],
      [[...field({}), ...field({ key: 'K' })], 'signupFields must not repeat a key'],
      [field({ key: 'email' }), 'signupFields key must not be email, name or phone (the form asks them itself)'],
    ];
    for (const [bad, message] of cases) {
      const r = await patch(id, { signupFields: bad });
      expect(r.status, JSON.stringify(bad)).toBe(400);
      expect(r.body.error, JSON.stringify(bad)).toBe(message);
    }
    const s = await env.request('GET', `/api/v1/contests/${id}/settings`, { key: t.privateKey });
    expect(s.body.data.signupFields.map((f: { key: string }) => f.key)).toEqual(FIELDS.map((f) => f.key));
  });
});

describe("a sign-up's answers", () => {
  it('are kept as the entry customFieldData when they fit the fields', async () => {
    const id = await contest();
    const answers = { ...GOOD, workEmail: 'ana@acme.example', birthday: '1990-02-28' };
    const r = await signup(id, { email: 'ana@example.com', customFields: answers });
    expect(r.status, r.text).toBe(201);
    const e = await env.request('GET', `/api/v1/entries/${r.body.data.entryId}`, { key: t.privateKey });
    expect(e.body.data.customFieldData).toEqual(answers);
    // optional fields may be left out, blank or null; an unticked optional checkbox is false
    const light = await signup(id, {
      email: 'bo@example.com',
      customFields: { ...GOOD, workEmail: '', birthday: null },
    });
    expect(light.status, light.text).toBe(201);
  });

  it('are refused with a 400 naming the field, and nothing is written', async () => {
    const id = await contest();
    const cases: [Record<string, unknown> | undefined, string][] = [
      [undefined, 'customFields.company is required'],
      [{ ...GOOD, company: '   ' }, 'customFields.company is required'],
      [{ ...GOOD, company: 42 }, 'customFields.company must be text of at most 500 characters'],
      [{ ...GOOD, company: 'x'.repeat(501) }, 'customFields.company must be text of at most 500 characters'],
      [{ ...GOOD, workEmail: 'not an email' }, 'customFields.workEmail must be an email address'],
      [{ ...GOOD, size: undefined }, 'customFields.size is required'],
      [{ ...GOOD, size: '100+' }, 'customFields.size must be one of 1-10, 11-50, 51+'],
      [{ ...GOOD, size: ['1-10'] }, 'customFields.size must be one of 1-10, 11-50, 51+'],
      [{ ...GOOD, terms: false }, 'customFields.terms is required'],
      [{ ...GOOD, terms: 'true' }, 'customFields.terms must be true or false'],
      [{ ...GOOD, birthday: '2026-02-30' }, 'customFields.birthday must be a date YYYY-MM-DD'],
      [{ ...GOOD, birthday: '30/01/1990' }, 'customFields.birthday must be a date YYYY-MM-DD'],
      [{ ...GOOD, birthday: 19900130 }, 'customFields.birthday must be a date YYYY-MM-DD'],
      [{ ...GOOD, admin: true }, 'customFields.admin is not a field of this contest'],
    ];
    for (const [customFields, message] of cases) {
      const r = await signup(id, { email: 'cy@example.com', ...(customFields ? { customFields } : {}) });
      expect(r.status, JSON.stringify(customFields)).toBe(400);
      expect(r.body.error, JSON.stringify(customFields)).toBe(message);
    }
    expect(await entries(id)).toBe(0);
    await env.settle();
    expect(env.sent.filter((m) => m.to === 'cy@example.com')).toEqual([]);
  });

  it('a contest without fields takes any object, as before', async () => {
    const id = await contest({ signupFields: [] });
    const r = await signup(id, { email: 'di@example.com', customFields: { anything: { nested: [1, 2] } } });
    expect(r.status, r.text).toBe(201);
  });

  it('the answers of a team server (private key) go through the same check', async () => {
    const id = await contest();
    const bad = await env.request('POST', `/api/v1/contests/${id}/signup`, {
      key: t.privateKey,
      body: { email: 'ed@example.com', customFields: { company: 'Acme' } },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toBe('customFields.size is required');
    expect(await entries(id)).toBe(0);
  });
});

describe('the answers in the CSV export', () => {
  it("one column per field after the fixed ones, in the fields' order: text, true/false, empty when unanswered", async () => {
    const id = await contest();
    for (const [email, customFields] of [
      ['fa@example.com', { ...GOOD, company: '=HYPERLINK("x")', workEmail: 'fa@acme.example' }],
      ['fb@example.com', { ...GOOD, terms: true, birthday: '2001-12-31' }],
    ] as const) {
      const r = await signup(id, { email, customFields });
      expect(r.status, r.text).toBe(201);
    }
    const csv = await env.request('GET', `/api/v1/contests/${id}/entries/export`, { key: t.privateKey });
    expect(csv.status).toBe(200);
    const lines = csv.text.split('\r\n');
    expect(lines[0]).toBe(`${EXPORT_HEADER},field.company,field.workEmail,field.size,field.terms,field.birthday`);
    const tail = (line: string) => line.split(',').slice(-5).join(',');
    expect(tail(lines[1]!)).toBe(`"'=HYPERLINK(""x"")",fa@acme.example,11-50,true,`);
    expect(tail(lines[2]!)).toBe('Acme,,11-50,true,2001-12-31');
    // a contest without fields: the fixed header alone
    const bare = await contest({ signupFields: [] });
    const plain = await env.request('GET', `/api/v1/contests/${bare}/entries/export`, { key: t.privateKey });
    expect(plain.text.split('\r\n')[0]).toBe(EXPORT_HEADER);
  });
});
