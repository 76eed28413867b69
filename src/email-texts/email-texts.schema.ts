/** The emails a team writes: bodies and answers (one schema each: it validates and documents). */
import * as v from 'valibot';
import { nullable, timestamp } from '../http/schemas.js';
import { PLACEHOLDERS, SUBJECT_MAX, TEAM_EMAIL_KINDS, TEXT_MAX } from '../mail/team-texts.js';

const subject = v.pipe(
  v.string('subject must be a string'),
  v.description(`one line, at most ${SUBJECT_MAX} characters, with the kind's {{placeholders}}`),
);
const text = v.pipe(
  v.string('text must be a string'),
  v.description(
    `plain text, at most ${TEXT_MAX} characters, with the kind's {{placeholders}}; the HTML part is made from it (everything escaped, web addresses made links)`,
  ),
);

export const EmailTextBody = v.object({ subject, text });
export const PreviewBody = v.object({ subject: v.optional(subject), text: v.optional(text) });

export const EmailText = v.strictObject({
  kind: v.picklist(TEAM_EMAIL_KINDS),
  subject: v.string(),
  text: v.string(),
  custom: v.pipe(v.boolean(), v.description('false: the default (the team has written none)')),
  updatedAt: nullable(timestamp),
  placeholders: v.array(
    v.strictObject({
      name: v.picklist(PLACEHOLDERS),
      meaning: v.string(),
      required: v.pipe(v.boolean(), v.description('a text without it is refused')),
    }),
  ),
});

export const EmailTextSummary = v.strictObject({
  kind: v.picklist(TEAM_EMAIL_KINDS),
  custom: v.boolean(),
  updatedAt: nullable(timestamp),
});

export const EmailPreview = v.strictObject({
  to: v.string(),
  subject: v.string(),
  text: v.string(),
  html: v.string(),
});
