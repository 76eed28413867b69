/** The emails a team writes, per contest and kind: read, write, reset, preview. */
import { Hono } from 'hono';
import { describeRoute } from 'hono-openapi';
import * as v from 'valibot';
import { requireKey } from '../http/auth.js';
import type { AppEnv } from '../http/context.js';
import { ok } from '../http/envelope.js';
import { apiErrors, jsonRequest, okJson, security } from '../http/schemas.js';
import { jsonBody, requireContestId } from '../http/validate.js';
import {
  previewEmailText,
  readEmailText,
  readEmailTexts,
  resetEmailText,
  teamEmailKind,
  writeEmailText,
} from './email-texts.js';
import { EmailPreview, EmailText, EmailTextBody, EmailTextSummary, PreviewBody } from './email-texts.schema.js';

const tags = ['Emails'];
const NOT_FOUND = ['Contest not found', 'Email kind not found'];
const TEXT_400 =
  'a message naming what is wrong: `Unknown placeholder {{foo}} in text: confirmation emails take {{name}}, {{contest}}, {{link}}`, ' +
  "`A confirmation email's text must contain {{link}}`, `subject must be one line without control characters`...";
const KINDS = 'confirmation, status-link, reward, admitted or winner';

export function emailTextRoutes() {
  const r = new Hono<AppEnv>();
  const privateKey = requireKey('private');
  const at = (c: { req: { param: (k: string) => string | undefined } }) => ({
    contestId: requireContestId(c.req.param('contestId')),
    kind: teamEmailKind(c.req.param('kind')),
  });

  r.get(
    '/api/v1/contests/:contestId/emails',
    describeRoute({
      operationId: 'listEmailTexts',
      tags,
      summary: 'The kinds of email the contest sends, and which the team has written itself',
      security: security.privateKey,
      responses: {
        200: okJson('One row per kind', v.array(EmailTextSummary)),
        ...apiErrors({ access: 'private' }, { 404: ['Contest not found'] }),
      },
    }),
    privateKey,
    async (c) => ok(c, await readEmailTexts(c.var.db(), c.var.auth.team, requireContestId(c.req.param('contestId')))),
  );

  r.get(
    '/api/v1/contests/:contestId/emails/:kind',
    describeRoute({
      operationId: 'getEmailText',
      tags,
      summary: `An email's subject and text (${KINDS}): the team's, or the default`,
      security: security.privateKey,
      responses: {
        200: okJson('The text, with the placeholders the kind takes', EmailText),
        ...apiErrors({ access: 'private' }, { 404: NOT_FOUND }),
      },
    }),
    privateKey,
    async (c) => {
      const { contestId, kind } = at(c);
      return ok(c, await readEmailText(c.var.db(), c.var.auth.team, contestId, kind));
    },
  );

  r.put(
    '/api/v1/contests/:contestId/emails/:kind',
    describeRoute({
      operationId: 'putEmailText',
      tags,
      summary: "Write the contest's own subject and text for a kind of email",
      description:
        'Placeholders: {{name}}, {{contest}}, {{link}}, {{code}}, {{reward}}, {{position}}, the ones the kind takes. ' +
        'The next email of the kind uses it; the HTML part is made from the text with everything escaped.',
      security: security.privateKey,
      requestBody: jsonRequest(EmailTextBody),
      responses: {
        200: okJson('The text saved', EmailText),
        ...apiErrors({ access: 'private', body: true }, { 400: TEXT_400, 404: NOT_FOUND }),
      },
    }),
    privateKey,
    jsonBody(EmailTextBody),
    async (c) => {
      const { contestId, kind } = at(c);
      const body = c.req.valid('json');
      return ok(c, await writeEmailText(c.var.db(), c.var.auth.team, contestId, kind, body, c.var.deps.clock.now()));
    },
  );

  r.delete(
    '/api/v1/contests/:contestId/emails/:kind',
    describeRoute({
      operationId: 'resetEmailText',
      tags,
      summary: 'Back to the default text for a kind of email',
      security: security.privateKey,
      responses: {
        200: okJson('The default text', EmailText),
        ...apiErrors({ access: 'private' }, { 404: NOT_FOUND }),
      },
    }),
    privateKey,
    async (c) => {
      const { contestId, kind } = at(c);
      return ok(c, await resetEmailText(c.var.db(), c.var.auth.team, contestId, kind));
    },
  );

  r.post(
    '/api/v1/contests/:contestId/emails/:kind/preview',
    describeRoute({
      operationId: 'previewEmailText',
      tags,
      summary:
        'The email as a sample person would get it: the subject and text given, else the saved ones, else the default',
      security: security.privateKey,
      requestBody: jsonRequest(PreviewBody),
      responses: {
        200: okJson('Subject, text and HTML as they would be sent', EmailPreview),
        ...apiErrors({ access: 'private', body: true }, { 400: TEXT_400, 404: NOT_FOUND }),
      },
    }),
    privateKey,
    jsonBody(PreviewBody),
    async (c) => {
      const { contestId, kind } = at(c);
      const body = c.req.valid('json');
      return ok(
        c,
        await previewEmailText(c.var.db(), c.var.auth.team, contestId, kind, body, c.var.deps.config.publicUrl),
      );
    },
  );

  return r;
}
