/**
 * Sign-ups from a page, with a public key (docs/signups.md): the contest's sign-up settings as the
 * widget reads them, the sign-up, and the visitor's own entry read with their entry token.
 */
import { Hono } from 'hono';
import { describeRoute } from 'hono-openapi';
import * as v from 'valibot';
import { ipHashSalt } from '../db/secrets.js';
import { type Deps, memoryRateLimiter, type RateLimiter } from '../deps.js';
import { Errors } from '../errors.js';
import { requireKey } from '../http/auth.js';
import { clientAddressKey } from '../http/client-address.js';
import type { AppContext, AppEnv } from '../http/context.js';
import { triggerEmailDelivery } from '../http/email-trigger.js';
import { ok } from '../http/envelope.js';
import { apiErrors, errors, json, jsonRequest, okEnvelope, okJson, security } from '../http/schemas.js';
import { jsonBody, requireContestId } from '../http/validate.js';
import { entryTokenOf, newEntryToken } from '../lib/entry-tokens.js';
import { returnPage } from '../lib/origins.js';
import { ipAddressSchema, USER_AGENT_MAX } from '../sql/risk.js';
import { statusLinkContent } from './emails.js';
import { recordShare, recordVisit } from './sharing.js';
import { createSignup } from './signup.js';
import { botCheckAsked, readMe, signupConfig } from './signups.js';
import {
  Me,
  ShareBody,
  ShareRecorded,
  SignupBody,
  SignupConfig,
  SignupCreated,
  SignupExisting,
  VisitBody,
  VisitReceived,
} from './signups.schema.js';
import { verifyTurnstile } from './turnstile.js';

/** /me: 120 reads a minute per client address (a page polls it; a guesser gets nowhere: 238-bit tokens) */
const meLimiters = new WeakMap<Deps, RateLimiter>();
const meLimiter = (deps: Deps) => {
  if (deps.meRateLimiter) return deps.meRateLimiter;
  let l = meLimiters.get(deps);
  if (!l) {
    l = memoryRateLimiter(120, 60, deps.clock);
    meLimiters.set(deps, l);
  }
  return l;
};

/**
 * The visitor's entry token of a /me route (`Authorization: Bearer et_…`), after the /me limit of
 * the client's address: 429 past it, 401 Missing or invalid entry token without a token.
 */
async function visitorToken(c: AppContext): Promise<string> {
  const deps = c.var.deps;
  const limited = await meLimiter(deps).limit(`me:${clientAddressKey(c)}`);
  if (!limited.success) throw Errors.tooManyRequests(limited.retryAfterSeconds);
  const token = entryTokenOf(c.req.header('authorization'));
  if (!token) throw Errors.invalidEntryToken();
  return token;
}

/** the client's address when it is one (a proxy's odd header never turns a sign-up into a 400) */
const ipOrNull = (ip: string | null) => (ip && v.is(ipAddressSchema, ip) ? ip : null);

export function signupRoutes() {
  const r = new Hono<AppEnv>();
  const tags = ['Sign-ups'];
  const publicKey = requireKey('public', { keyless: 'contest' });

  r.get(
    '/api/v1/contests/:contestId/signup',
    describeRoute({
      operationId: 'getSignupSettings',
      tags,
      summary: "The contest's sign-up settings, as the sign-up widget reads them",
      security: security.keyless,
      responses: {
        200: okJson(
          'Title, description, whether public sign-ups are on, the consent text, the bot check',
          SignupConfig,
        ),
        ...apiErrors({ access: 'public' }, { 404: ['Contest not found'] }),
      },
    }),
    publicKey,
    async (c) => {
      const contestId = requireContestId(c.req.param('contestId'));
      const siteKey = c.var.deps.config.turnstile?.siteKey ?? null;
      return ok(c, await signupConfig(c.var.db(), c.var.auth.team, contestId, siteKey, c.var.deps.config.publicUrl));
    },
  );

  r.post(
    '/api/v1/contests/:contestId/signup',
    describeRoute({
      operationId: 'signUp',
      tags,
      summary: 'Sign up from a page (public key): an entry whose email is confirmed before it counts',
      description:
        'Only for a contest with `publicSignup: true`. The rules of entry create apply (limits, risk signals, ' +
        'disposable domains, rate limits). With a public key the email must always be confirmed before the entry ' +
        'counts. An email already entered answers 200 `{alreadyExists: true, linkSent}` and nothing else; its owner is ' +
        'emailed a link to their own page (at most one such email per 10 minutes; `linkSent` says whether this ' +
        'sign-up sent it).',
      security: security.keyless,
      responses: {
        201: okJson('The new entry and its token (shown once)', SignupCreated),
        200: json('The email was entered before', okEnvelope(SignupExisting)),
        ...apiErrors(
          { access: 'public', body: true },
          {
            400: [
              'consent is required',
              'Invalid email',
              'Email or phone is required',
              'Invalid request body',
              'a message naming the field',
            ],
            403: [
              'Sign-ups with a public key are off for this contest',
              'Bot check failed',
              'Entry refused by risk rules',
            ],
            404: ['Contest not found'],
            409: ['Contest is not active'],
          },
        ),
        ...errors({ 503: ['Bot check unavailable, try again'] }),
      },
    }),
    publicKey,
    jsonBody(SignupBody),
    describeRoute({ requestBody: jsonRequest(SignupBody) }),
    async (c) => {
      const contestId = requireContestId(c.req.param('contestId'));
      const body = c.req.valid('json');
      const deps = c.var.deps;
      // the order: the key and the rate limit (requireKey), then the key checked in the database
      // and the contest asked whether it wants the bot check, then siteverify, then the write
      const asked = body.turnstileToken ? await botCheckAsked(c.var.db(), c.var.auth.team, contestId) : false;
      const outcome = asked
        ? await verifyTurnstile({
            secretKey: deps.config.turnstile?.secretKey,
            verifyUrl: deps.config.turnstile?.verifyUrl,
            timeoutMs: deps.config.turnstile?.timeoutMs,
            token: body.turnstileToken!,
            remoteIp: deps.clientIp(c),
            fetch: deps.fetch ?? ((input, init) => globalThis.fetch(input, init)),
          })
        : 'failed';
      const visitor = c.var.auth.type === 'public';
      const own = await newEntryToken(deps.random);
      const link = await newEntryToken(deps.random);
      const result = await createSignup(
        c.var.db(),
        {
          now: deps.clock.now(),
          random: deps.random,
          publicUrl: deps.config.publicUrl,
          ipHashSalt: () => ipHashSalt(deps),
        },
        { id: contestId, team: c.var.auth.team },
        {
          email: body.email,
          phone: body.phone ?? undefined,
          name: body.name ?? undefined,
          referralCode: body.referralCode ?? undefined,
          customFieldData: body.customFields ?? undefined,
          // a page's visitor: their address and browser go to the risk rules, as a private create's
          // ipAddress does (with a private key the caller is the team's server, not the visitor)
          ...(visitor
            ? {
                ipAddress: ipOrNull(deps.clientIp(c)),
                userAgent: c.req.header('user-agent')?.slice(0, USER_AGENT_MAX) ?? null,
              }
            : {}),
        },
        {
          visitor,
          consent: body.consent === true,
          botChecked: outcome === 'ok',
          botCheckError: outcome === 'unavailable' ? Errors.botCheckUnavailable() : Errors.botCheckFailed(),
          tokenHash: own.hash,
          channel: body.channel ?? null,
          returnPage: body.returnUrl ? returnPage(body.returnUrl) : null,
          statusLink: { tokenHash: link.hash, mail: statusLinkContent(deps.random, link.token) },
        },
      );
      if (result.emailQueued) triggerEmailDelivery(c);
      if (result.status === 200) return ok(c, { alreadyExists: true as const, linkSent: result.signup.linkSent }, 200);
      return ok(
        c,
        {
          entryId: result.data.entryId,
          referralCode: result.data.referralCode,
          entryToken: own.token,
          confirmationRequired: result.signup.confirmationRequired,
          position: result.signup.position,
        },
        201,
      );
    },
  );

  r.get(
    '/api/v1/me',
    describeRoute({
      operationId: 'getMyEntry',
      tags,
      summary: "The visitor's own entry, with its position (Authorization: Bearer et_…)",
      security: security.entryToken,
      responses: {
        200: okJson('The entry of the token', Me),
        ...errors({ 401: ['Missing or invalid entry token'], 429: true, 500: true }),
      },
    }),
    async (c) => {
      return ok(c, await readMe(c.var.db(), await visitorToken(c)));
    },
  );

  r.post(
    '/api/v1/contests/:contestId/visits',
    describeRoute({
      operationId: 'recordVisit',
      tags,
      summary: 'Count a visit of a share link (its referral code and channel); the answer is the same for any code',
      description:
        'The sign-up widget sends it once per browser, contest and code, on a page opened with `?ref=`. ' +
        'Nothing is written for a code the contest does not have, and the answer does not say so. ' +
        'Without a key: a contest with `publicSignup: true`.',
      security: security.keyless,
      responses: {
        202: okJson('Received', VisitReceived),
        ...apiErrors({ access: 'public', body: true }, { 400: true, 404: ['Contest not found'] }),
      },
    }),
    publicKey,
    jsonBody(VisitBody),
    async (c) => {
      const contestId = requireContestId(c.req.param('contestId'));
      const body = c.req.valid('json');
      await recordVisit(
        c.var.db(),
        c.var.auth.team,
        contestId,
        { referralCode: body.referralCode, channel: body.channel ?? null },
        c.var.deps.clock.now(),
      );
      return ok(c, { received: true as const }, 202);
    },
  );

  r.post(
    '/api/v1/me/shares',
    describeRoute({
      operationId: 'recordShare',
      tags,
      summary: "Count a click on one of the visitor's share buttons (Authorization: Bearer et_…)",
      security: security.entryToken,
      responses: {
        201: okJson('Recorded', ShareRecorded),
        ...errors({ 400: true, 401: ['Missing or invalid entry token'], 413: true, 415: true, 429: true, 500: true }),
      },
    }),
    jsonBody(ShareBody),
    async (c) => {
      const token = await visitorToken(c);
      await recordShare(c.var.db(), token, c.req.valid('json').channel, c.var.deps.clock.now());
      return ok(c, { recorded: true as const }, 201);
    },
  );

  return r;
}
