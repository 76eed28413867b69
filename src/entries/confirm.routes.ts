import { Hono } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { describeRoute, resolver } from 'hono-openapi';
import * as v from 'valibot';
import { ApiError } from '../errors.js';
import type { AppContext, AppEnv } from '../http/context.js';
import { ok } from '../http/envelope.js';
import { ErrorEnvelope, errors, json, okJson, security } from '../http/schemas.js';
import { newEntryToken } from '../lib/entry-tokens.js';
import { escapeHtml, htmlDocument } from '../lib/html.js';
import { confirmEmail } from './confirm.js';
import { Confirmed } from './entries.schema.js';

const html = { 'text/html': { schema: resolver(v.string()) } };
/** An error: an HTML page by default, the error envelope with Accept: application/json. */
const pageOrError = (messages: string) => {
  const res = json(messages, ErrorEnvelope);
  return { ...res, content: { ...html, ...res.content } };
};

/** `Accept: application/json` (or any +json type) asks for the JSON envelope instead of the page. */
const wantsJson = (c: AppContext) => /application\/([\w.-]+\+)?json/i.test(c.req.header('accept') ?? '');

function page(c: AppContext, status: ContentfulStatusCode, title: string, body: string) {
  // the token is in the URL: keep it out of Referer headers and caches
  c.header('Cache-Control', 'no-store');
  c.header('Referrer-Policy', 'no-referrer');
  c.header('X-Content-Type-Options', 'nosniff');
  c.header('Content-Security-Policy', "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'");
  return c.html(
    htmlDocument({
      title,
      head: '<style>body{font-family:system-ui,sans-serif;line-height:1.5;color:#111;max-width:32rem;margin:4rem auto;padding:0 1rem}h1{font-size:1.5rem}</style>',
      body: `<main><h1>${escapeHtml(title)}</h1>${body}</main>`,
    }),
    status,
  );
}

export function confirmRoutes() {
  const r = new Hono<AppEnv>();
  r.get(
    '/api/confirm/:token',
    describeRoute({
      operationId: 'confirmEmail',
      tags: ['Email confirmation'],
      summary:
        "Confirm an entry's email (link from the confirmation email); HTML, or JSON with Accept: application/json",
      security: security.none,
      responses: {
        200: (() => {
          const res = okJson(
            'Confirmed (also when it was confirmed before): a page for the person, or with Accept: application/json the envelope',
            Confirmed,
          );
          return { ...res, content: { ...html, ...res.content } };
        })(),
        303: {
          description:
            "Confirmed, for a contest with a landing page (sign-ups): redirected there (Location), where the sign-up widget shows the person's place",
        },
        404: pageOrError('`Confirmation link not found`'),
        ...errors({ 500: true }),
      },
    }),
    async (c) => {
      try {
        const fresh = await newEntryToken(c.var.deps.random);
        const result = await confirmEmail(
          c.var.db(),
          c.req.param('token'),
          c.var.deps.clock.now(),
          fresh.hash,
          c.var.deps.config.publicUrl,
        );
        if (wantsJson(c)) return ok(c, { entryId: result.entryId, emailConfirmed: result.emailConfirmed });
        // a contest with a landing page: back there, where the widget shows the person's place with
        // the fresh token in the fragment (never sent to a server); the tokens of sign-up answers ended
        if (result.landingUrl) return c.redirect(`${result.landingUrl.split('#')[0]}#ce-entry=${fresh.token}`, 303);
        const what = result.email
          ? `<strong>${escapeHtml(result.email)}</strong> is confirmed`
          : 'Your email is confirmed';
        return page(
          c,
          200,
          result.alreadyConfirmed ? 'Already confirmed' : 'Email confirmed',
          `<p>${what}. Your entry in <strong>${escapeHtml(result.contestTitle)}</strong> is complete.</p>` +
            `<p style="color:#666">You can close this page.</p>`,
        );
      } catch (e) {
        if (e instanceof ApiError && !wantsJson(c)) {
          return page(
            c,
            e.status,
            e.message,
            '<p>This link is not valid. Check that you copied the whole link from the email.</p>',
          );
        }
        throw e;
      }
    },
  );
  return r;
}
