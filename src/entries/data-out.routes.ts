/**
 * Getting data out (private key): the streamed CSV export of a contest's entries, everything
 * held about one person, and erasure.
 */
import { Hono } from 'hono';
import { describeRoute } from 'hono-openapi';
import { requireKey } from '../http/auth.js';
import type { AppEnv } from '../http/context.js';
import { ok } from '../http/envelope.js';
import { apiErrors, okJson, security } from '../http/schemas.js';
import { queryParams, requireContestId } from '../http/validate.js';
import { eraseEntry, exportEntries, exportPerson } from './data-out.js';
import { entryFilters } from './entries.routes.js';
import { Erased, entryFilterParams, personSchema } from './entries.schema.js';

export function privacyRoutes() {
  const r = new Hono<AppEnv>();
  const tags = ['Data export and erasure'];
  const privateKey = requireKey('private');

  r.get(
    '/api/v1/contests/:contestId/entries/export',
    describeRoute({
      tags,
      operationId: 'exportEntries',
      security: security.privateKey,
      summary:
        "Every entry of a contest as CSV, oldest first (streamed); with the entries list's filters, the entries that match them",
      responses: {
        200: {
          description:
            'RFC 4180 CSV (CRLF, no BOM); header `id,email,name,phone,points,emailConfirmed,disqualified,referralCode,referredBy,referralsCount,riskLevel,createdAt,consentedAt,consentTextSha256,admittedAt`, then `field.<key>` for each field of the contest (its signupFields) (its answer: text, true/false, or JSON)',
          content: { 'text/csv': { schema: { type: 'string' } } },
        },
        ...apiErrors({ access: 'private' }, { 400: true, 404: ['Contest not found'] }),
      },
    }),
    privateKey,
    queryParams(entryFilterParams),
    async (c) => {
      const contestId = requireContestId(c.req.param('contestId'));
      const out = await exportEntries(
        c.var.db(),
        c.var.auth.team,
        contestId,
        { acquire: () => c.var.deps.database.acquire() },
        entryFilters(c.req.valid('query')),
      );
      return c.body(out.stream, 200, {
        'content-type': 'text/csv; charset=utf-8',
        'content-disposition': `attachment; filename="${out.filename.replace(/["\\\r\n]/g, '')}"`,
        'cache-control': 'no-store',
      });
    },
  );

  r.get(
    '/api/v1/entries/:entryId/export',
    describeRoute({
      tags,
      operationId: 'exportPerson',
      security: security.privateKey,
      summary: 'Everything held about one person in the contest (access request)',
      responses: {
        200: okJson('The entry, its ledger, completions, purchases, plays and emails, oldest first', personSchema),
        ...apiErrors({ access: 'private' }, { 404: ['Entry not found'] }),
      },
    }),
    privateKey,
    async (c) => {
      c.header('cache-control', 'no-store');
      return ok(c, await exportPerson(c.var.db(), c.var.auth.team, c.req.param('entryId')));
    },
  );

  r.delete(
    '/api/v1/entries/:entryId',
    describeRoute({
      tags,
      operationId: 'eraseEntry',
      security: security.privateKey,
      summary: 'Erase a person: personal data removed, totals kept; the entry answers 404 from then on',
      responses: {
        200: okJson('Erased', Erased),
        ...apiErrors({ access: 'private' }, { 404: ['Entry not found'] }),
      },
    }),
    privateKey,
    async (c) => {
      const erased = await eraseEntry(c.var.db(), c.var.auth.team, c.req.param('entryId'), c.var.deps.clock.now());
      // the person's name and email leave the cached public answers now (docs/privacy-requests.md)
      await c.var.deps.publicCache?.forget(erased.contestId);
      return ok(c, erased.answer);
    },
  );
  return r;
}
