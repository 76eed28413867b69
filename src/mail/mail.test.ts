/**
 * Mail transports: SMTP (nodemailer) to a real SMTP server in this process (smtp-server), through
 * the outbox; Resend's request shape against its documented API with an injected fetch; the
 * transport selection from the environment; email content stays text (a `<script>` name is
 * escaped in HTML).
 */
import type { AddressInfo } from 'node:net';
import { sql } from 'drizzle-orm';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, queryOne, type TestEnv } from '../../test/support/harness.js';
import type { Db } from '../db/client.js';
import type { Logger, OutgoingEmail } from '../deps.js';
import { MailError } from './errors.js';
import { logTransport } from './log.js';
import { deliverDueEmails } from './outbox.js';
import { resendTransport } from './resend.js';
import { mailConfigProblem, transportKind, workerMailer } from './select.js';
import { messageIdFor, type SmtpMailer, smtpTransport } from './smtp.js';
import { prizeEmail, statusLinkEmail } from './templates.js';

// ---- a tiny MIME reader for what the SMTP server received ----

function decodeQP(s: string): string {
  const bytes: number[] = [];
  const src = s.replace(/=\r?\n/g, '');
  for (let i = 0; i < src.length; i++) {
    if (src[i] === '=' && /^[0-9A-F]{2}$/i.test(src.slice(i + 1, i + 3))) {
      bytes.push(parseInt(src.slice(i + 1, i + 3), 16));
      i += 2;
    } else bytes.push(...Buffer.from(src[i]!, 'utf8'));
  }
  return Buffer.from(bytes).toString('utf8');
}

function splitHead(raw: string): { headers: string; body: string } {
  const i = raw.search(/\r?\n\r?\n/);
  return { headers: raw.slice(0, i), body: raw.slice(i).replace(/^\r?\n\r?\n/, '') };
}

const header = (headers: string, name: string) =>
  new RegExp(`^${name}:\\s*((?:.*)(?:\\r?\\n[ \\t].*)*)`, 'im')
    .exec(headers)?.[1]
    ?.replace(/\r?\n[ \t]+/g, ' ')
    .trim();

function decodePart(headers: string, body: string): string {
  const enc = (header(headers, 'Content-Transfer-Encoding') ?? '7bit').toLowerCase();
  if (enc === 'base64') return Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8');
  if (enc === 'quoted-printable') return decodeQP(body);
  return body;
}

/** text/plain and text/html bodies of a (multipart/alternative) message */
function mimeParts(raw: string): { headers: string; text?: string; html?: string } {
  const top = splitHead(raw);
  const ctype = header(top.headers, 'Content-Type') ?? '';
  const out: { headers: string; text?: string; html?: string } = { headers: top.headers };
  const boundary = /boundary="?([^";]+)"?/i.exec(ctype)?.[1];
  const parts = boundary
    ? top.body
        .split(`--${boundary}`)
        .slice(1, -1)
        .map((p) => splitHead(p.replace(/^\r?\n/, '')))
    : [{ headers: top.headers, body: top.body }];
  for (const p of parts) {
    const t = (header(p.headers, 'Content-Type') ?? '').toLowerCase();
    const content = decodePart(p.headers, p.body.replace(/\r?\n$/, ''));
    if (t.startsWith('text/plain')) out.text = content;
    if (t.startsWith('text/html')) out.html = content;
  }
  return out;
}

// ---- a real SMTP server in the test process ----

interface Received {
  from: string;
  to: string[];
  raw: string;
}

async function startSmtp() {
  const received: Received[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onRcptTo(address, _session, callback) {
      const code = /^(bounce|later)-/.exec(address.address)?.[1];
      if (code) {
        const err = Object.assign(new Error(code === 'bounce' ? 'Mailbox unavailable' : 'Try again later'), {
          responseCode: code === 'bounce' ? 550 : 451,
        });
        return callback(err);
      }
      callback();
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        received.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address),
          raw: Buffer.concat(chunks).toString('utf8'),
        });
        callback();
      });
    },
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const port = (server.server.address() as AddressInfo).port;
  return { received, port, close: () => new Promise<void>((r) => server.close(() => r())) };
}

async function queue(
  db: Db,
  teamId: string,
  to: string,
  content: { subject: string; text: string; html: string | null },
  at: Date,
) {
  const row = await queryOne<{ id: string; idempotency_key: string }>(
    db,
    sql`insert into email_outbox (team_id, "to", kind, subject, text, html, next_attempt_at)
        values (${teamId}, ${to}, 'confirmation', ${content.subject}, ${content.text}, ${content.html}, ${at.toISOString()}::timestamptz)
        returning id, idempotency_key`,
  );
  return row!;
}

const statusOf = (db: Db, id: string) =>
  queryOne<{ status: string; attempts: number; last_error: string | null }>(
    db,
    sql`select status, attempts, last_error from email_outbox where id = ${id}`,
  );

describe('SMTP transport (nodemailer) to a real SMTP server, through the outbox', () => {
  let env: TestEnv;
  let teamId: string;
  let smtp: Awaited<ReturnType<typeof startSmtp>>;
  let mailer: SmtpMailer;
  const FROM = 'Contests <contests@example.com>';

  beforeAll(async () => {
    env = await createTestEnv();
    teamId = (await env.team()).teamId;
    smtp = await startSmtp();
    mailer = smtpTransport({ url: `smtp://127.0.0.1:${smtp.port}`, from: FROM, timeoutMs: 5000 });
  });
  afterAll(async () => {
    mailer.close();
    await smtp.close();
    await env.close();
  });

  it('delivers a "your link" email: envelope, headers, text and escaped HTML (an entry named <script>)', async () => {
    const content = statusLinkEmail({
      contestTitle: 'Summer <b>Giveaway</b> & more',
      name: '<script>alert(1)</script>',
      link: 'http://contests.test/api/confirm/tok_123?a=1&b=2',
    });
    const now = env.clock.now();
    const row = await queue(env.db, teamId, 'ada@example.com', content, now);
    const res = await deliverDueEmails(env.db, mailer, now);
    expect(res).toMatchObject({ sent: 1, failed: 0 });
    expect(await statusOf(env.db, row.id)).toMatchObject({ status: 'sent', attempts: 1 });

    expect(smtp.received).toHaveLength(1);
    const msg = smtp.received[0]!;
    expect(msg.from).toBe('contests@example.com');
    expect(msg.to).toEqual(['ada@example.com']);
    const parsed = mimeParts(msg.raw);
    expect(header(parsed.headers, 'Subject')).toBe('Your entry: Summer <b>Giveaway</b> & more');
    expect(header(parsed.headers, 'Message-ID')).toBe(`<${row.idempotency_key}@example.com>`);
    // the plain-text part carries the name as typed, and the link
    expect(parsed.text).toContain('Hi <script>alert(1)</script>,');
    expect(parsed.text).toContain('http://contests.test/api/confirm/tok_123?a=1&b=2');
    // the HTML part never contains the raw markup: it arrives as text
    expect(parsed.html).toBeDefined();
    expect(parsed.html).not.toContain('<script>');
    expect(parsed.html).not.toContain('<b>Giveaway');
    expect(parsed.html).toContain('Hi &lt;script&gt;alert(1)&lt;/script&gt;,');
    expect(parsed.html).toContain('Summer &lt;b&gt;Giveaway&lt;/b&gt; &amp; more');
    expect(parsed.html).toContain('href="http://contests.test/api/confirm/tok_123?a=1&amp;b=2"');
  });

  it('delivers a prize email with the game title and the coupon code', async () => {
    const content = prizeEmail({
      gameTitle: 'Spin <it>',
      prizeName: '10% off',
      couponCode: 'SAVE<10>',
      redeemUrl: 'https://shop.test/r?c=1&d=2',
    });
    const now = env.clock.now();
    await queue(env.db, teamId, 'winner@example.com', content, now);
    await deliverDueEmails(env.db, mailer, now);
    const msg = smtp.received.find((m) => m.to[0] === 'winner@example.com')!;
    const parsed = mimeParts(msg.raw);
    expect(header(parsed.headers, 'Subject')).toBe('You won: 10% off');
    expect(parsed.text).toContain('Your code: SAVE<10>');
    expect(parsed.text).toContain('"Spin <it>"');
    expect(parsed.html).toContain('SAVE&lt;10&gt;');
    expect(parsed.html).toContain('Spin &lt;it&gt;');
    expect(parsed.html).not.toContain('<it>');
  });

  it('a 550 refusal fails the email for good; a 451 is retried later', async () => {
    const now = env.clock.now();
    const bounce = await queue(env.db, teamId, 'bounce-x@example.com', { subject: 's', text: 't', html: null }, now);
    const later = await queue(env.db, teamId, 'later-x@example.com', { subject: 's', text: 't', html: null }, now);
    const res = await deliverDueEmails(env.db, mailer, now);
    expect(res).toMatchObject({ sent: 0, failed: 1, retrying: 1 });
    const b = await statusOf(env.db, bounce.id);
    expect(b).toMatchObject({ status: 'failed', attempts: 1 });
    expect(b!.last_error).toMatch(/^SMTP 550: .*Mailbox unavailable/);
    const l = await statusOf(env.db, later.id);
    expect(l).toMatchObject({ status: 'pending', attempts: 1 });
    expect(l!.last_error).toMatch(/^SMTP 451: .*Try again later/);
  });

  it('an unreachable server is a transient failure (kept pending, retried)', async () => {
    const down = smtpTransport({ url: 'smtp://127.0.0.1:1', from: FROM, timeoutMs: 2000 });
    const now = env.clock.now();
    const row = await queue(env.db, teamId, 'nobody@example.com', { subject: 's', text: 't', html: null }, now);
    // only this row is due for this deliverer's clock, others were handled already
    const res = await deliverDueEmails(env.db, down, now);
    down.close();
    expect(res.retrying).toBeGreaterThanOrEqual(1);
    const s = await statusOf(env.db, row.id);
    expect(s).toMatchObject({ status: 'pending', attempts: 1 });
    expect(s!.last_error).toMatch(/^SMTP error: .*(ECONNREFUSED|connect)/i);
  });

  it('Message-ID comes from the idempotency key and the sender domain', () => {
    expect(messageIdFor('k1', 'Contests <contests@example.com>')).toBe('<k1@example.com>');
    expect(messageIdFor('k1', 'plain@mail.example.org')).toBe('<k1@mail.example.org>');
    expect(messageIdFor('k1', 'no address')).toBe('<k1@contest-engine.local>');
  });
});

describe('Resend transport: the request it makes', () => {
  const email: OutgoingEmail = {
    id: 'e1',
    to: 'ada@example.com',
    subject: 'You won: 10% off',
    text: 'Your code: SAVE10\n',
    html: '<p>Your code: SAVE10</p>',
    idempotencyKey: '4a1c7c1e-3f0e-4a4e-9a51-9d1f0c7e2b11',
  };

  function fakeFetch(status: number, body: unknown) {
    const calls: { url: string; init: RequestInit }[] = [];
    const f = (async (url: string | URL | Request, init?: RequestInit) => {
      calls.push({ url: String(url), init: init ?? {} });
      return new Response(typeof body === 'string' ? body : JSON.stringify(body), {
        status,
        headers: { 'content-type': 'application/json' },
      });
    }) as typeof fetch;
    return { f, calls };
  }

  it('POSTs https://api.resend.com/emails with Bearer auth, Idempotency-Key and the JSON body', async () => {
    const { f, calls } = fakeFetch(200, { id: '49a3999c-0ce1-4ea6-ab68-afcd6dc2e794' });
    await resendTransport({ apiKey: 're_123', from: 'Contests <contests@example.com>', fetch: f }).send(email);
    expect(calls).toHaveLength(1);
    const { url, init } = calls[0]!;
    expect(url).toBe('https://api.resend.com/emails');
    expect(init.method).toBe('POST');
    const headers = new Headers(init.headers);
    expect(headers.get('authorization')).toBe('Bearer re_123');
    expect(headers.get('content-type')).toBe('application/json');
    expect(headers.get('idempotency-key')).toBe(email.idempotencyKey);
    expect(JSON.parse(String(init.body))).toEqual({
      from: 'Contests <contests@example.com>',
      to: ['ada@example.com'],
      subject: 'You won: 10% off',
      text: 'Your code: SAVE10\n',
      html: '<p>Your code: SAVE10</p>',
    });
    expect(init.signal).toBeInstanceOf(AbortSignal);
  });

  it('leaves html out when the email has none; honours a custom API URL', async () => {
    const { f, calls } = fakeFetch(200, { id: 'x' });
    await resendTransport({ apiKey: 'k', from: 'a@b.c', fetch: f, apiUrl: 'http://127.0.0.1:9999/' }).send({
      ...email,
      html: null,
    });
    expect(calls[0]!.url).toBe('http://127.0.0.1:9999/emails');
    expect(JSON.parse(String(calls[0]!.init.body))).not.toHaveProperty('html');
  });

  it.each([
    [500, { statusCode: 500, name: 'application_error', message: 'Something went wrong' }, false],
    [429, { statusCode: 429, name: 'rate_limit_exceeded', message: 'Too many requests' }, false],
    [409, { statusCode: 409, name: 'concurrent_idempotent_requests', message: 'in progress' }, false],
    [403, { statusCode: 403, name: 'validation_error', message: 'The example.com domain is not verified' }, false],
    [401, { statusCode: 401, name: 'missing_api_key', message: 'Missing API key' }, false],
    [422, { statusCode: 422, name: 'validation_error', message: 'Invalid `to` field' }, true],
    [400, { statusCode: 400, name: 'validation_error', message: 'bad field' }, true],
    [409, { statusCode: 409, name: 'invalid_idempotent_request', message: 'different payload' }, true],
  ])('HTTP %i %o → MailError, permanent=%s', async (status, body, permanent) => {
    const { f } = fakeFetch(status, body);
    const err = await resendTransport({ apiKey: 'k', from: 'a@b.c', fetch: f })
      .send(email)
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(MailError);
    expect((err as MailError).permanent).toBe(permanent);
    expect((err as MailError).message).toBe(`Resend ${status} ${body.name}: ${body.message}`);
  });

  it('a network failure is transient and never leaks the API key', async () => {
    const f = (async () => {
      throw new TypeError('fetch failed');
    }) as typeof fetch;
    const err = (await resendTransport({ apiKey: 're_secret', from: 'a@b.c', fetch: f })
      .send(email)
      .catch((e: unknown) => e)) as MailError;
    expect(err).toBeInstanceOf(MailError);
    expect(err.permanent).toBe(false);
    expect(err.message).toBe('Resend request failed: fetch failed');
    expect(err.message).not.toContain('re_secret');
  });
});

describe('transport selection from the environment', () => {
  it('MAIL_TRANSPORT wins; else SMTP_URL → smtp, RESEND_API_KEY → resend, nothing → log', () => {
    expect(transportKind({})).toBe('log');
    expect(transportKind({ SMTP_URL: 'smtp://x' })).toBe('smtp');
    expect(transportKind({ RESEND_API_KEY: 're_x' })).toBe('resend');
    expect(transportKind({ MAIL_TRANSPORT: 'LOG', RESEND_API_KEY: 're_x' })).toBe('log');
    expect(() => transportKind({ MAIL_TRANSPORT: 'pigeon' })).toThrow(
      'MAIL_TRANSPORT must be log, smtp or resend (got "pigeon")',
    );
  });

  it('names what is missing', () => {
    expect(mailConfigProblem({}, 'log')).toBeNull();
    expect(mailConfigProblem({ RESEND_API_KEY: 'k' }, 'resend')).toMatch(/needs MAIL_FROM/);
    expect(mailConfigProblem({ MAIL_FROM: 'a@b.c' }, 'resend')).toBe('MAIL_TRANSPORT=resend needs RESEND_API_KEY');
    expect(mailConfigProblem({ MAIL_FROM: 'a@b.c' }, 'smtp')).toBe('MAIL_TRANSPORT=smtp needs SMTP_URL');
    expect(mailConfigProblem({ SMTP_URL: 'smtp://x', MAIL_FROM: 'a@b.c' }, 'smtp')).toBeNull();
  });

  it('the Worker mailer: Resend with key and sender; refuses SMTP and half-configured Resend with the reason', async () => {
    const logger: Logger = { info: () => {}, error: () => {} };
    const calls: string[] = [];
    const f = (async (url: string | URL | Request) => {
      calls.push(String(url));
      return new Response('{"id":"x"}', { status: 200 });
    }) as typeof fetch;
    const email: OutgoingEmail = { id: 'e', to: 'a@b.c', subject: 's', text: 't', html: null, idempotencyKey: 'k' };
    await workerMailer({ RESEND_API_KEY: 're_x', MAIL_FROM: 'a@b.c' }, logger, f).send(email);
    expect(calls).toEqual(['https://api.resend.com/emails']);
    await expect(workerMailer({ SMTP_URL: 'smtp://x', MAIL_FROM: 'a@b.c' }, logger, f).send(email)).rejects.toThrow(
      'mail not configured: SMTP is not available on Workers; use RESEND_API_KEY',
    );
    await expect(workerMailer({ RESEND_API_KEY: 're_x' }, logger, f).send(email)).rejects.toThrow(
      /mail not configured: .*needs MAIL_FROM/,
    );
    expect(calls).toHaveLength(1);
  });

  it('the log transport prints recipient, subject and text', async () => {
    const lines: { msg: string; fields?: Record<string, unknown> }[] = [];
    const logger: Logger = { info: (msg, fields) => lines.push({ msg, fields }), error: () => {} };
    await logTransport(logger).send({
      id: 'e',
      to: 'a@b.c',
      subject: 'Hello',
      text: 'Body',
      html: '<p>Body</p>',
      idempotencyKey: 'k',
    });
    expect(lines).toEqual([
      { msg: 'email (log transport: not sent)', fields: { id: 'e', to: 'a@b.c', subject: 'Hello', text: 'Body' } },
    ]);
  });
});
