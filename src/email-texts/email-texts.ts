/**
 * The emails a team writes, per contest and kind: read (the default when unset), written,
 * reset, previewed for a sample person. One statement each. The texts are used by the statements
 * that queue the emails (src/sql/outbox.ts; the reward email: ce_reward_notify in
 * src/db/functions/rewards.sql), so a change applies to the next email queued.
 */
import { type SQL, sql } from 'drizzle-orm';
import { type Db, iso, queryOne } from '../db/client.js';
import type { Team } from '../db/team.js';
import { Errors } from '../errors.js';
import { isUuid } from '../lib/crypto.js';
import {
  parseTeamBody,
  parseTeamSubject,
  parseTeamText,
  TEAM_EMAIL_KINDS,
  TEAM_EMAILS,
  type TeamEmailKind,
} from '../mail/team-texts.js';
import { sqlLandingUrl } from '../sql/contests.js';
import { sqlOfTeam } from '../sql/scope.js';

export function teamEmailKind(raw: string | undefined): TeamEmailKind {
  if (!raw || !(TEAM_EMAIL_KINDS as readonly string[]).includes(raw)) throw Errors.emailKindNotFound();
  return raw as TeamEmailKind;
}

/** The kind's default subject and text as SQL (the reward's lives in the database). */
function sqlDefault(kind: TeamEmailKind): { subject: SQL; text: SQL } {
  const d = TEAM_EMAILS[kind].defaultText?.();
  if (!d) {
    return {
      subject: sql`(select subject from ce_reward_email_default(true))`,
      text: sql`(select text from ce_reward_email_default(true))`,
    };
  }
  return { subject: sql`${d.subject}::text`, text: sql`${d.text}::text` };
}

interface TextRow {
  contest_found: boolean;
  subject: string;
  text: string;
  custom: boolean;
  updated_at: Date | string | null;
}

function shape(kind: TeamEmailKind, row: TextRow) {
  const spec = TEAM_EMAILS[kind];
  return {
    kind,
    subject: row.subject,
    text: row.text,
    custom: row.custom,
    updatedAt: iso(row.updated_at),
    placeholders: spec.placeholders.map((name) => ({
      name,
      meaning: spec.meaning[name] ?? '',
      required: spec.required.includes(name),
    })),
  };
}

const sqlContest = (team: Team, contestId: string) =>
  sql`${team.cte} c as (select c.id, c.title, c.landing_url, c.public_signup from contests c where c.id = ${contestId} and ${sqlOfTeam(team, 'c')})`;

export async function readEmailText(db: Db, team: Team, contestId: string, kind: TeamEmailKind) {
  if (!isUuid(contestId)) throw Errors.contestNotFound();
  const d = sqlDefault(kind);
  const row = await queryOne<TextRow>(
    db,
    sql`with ${sqlContest(team, contestId)}
        select exists (select 1 from c) as contest_found, coalesce(t.subject, ${d.subject}) as subject,
          coalesce(t.text, ${d.text}) as text, t.contest_id is not null as custom, t.updated_at
        from (select 1) one left join email_texts t on t.contest_id = (select id from c) and t.kind = ${kind}`,
  );
  if (!row?.contest_found) throw Errors.contestNotFound();
  return shape(kind, row);
}

/** Every kind at once (the console's list). */
export async function readEmailTexts(db: Db, team: Team, contestId: string) {
  if (!isUuid(contestId)) throw Errors.contestNotFound();
  const row = await queryOne<{ contest_found: boolean; custom: Record<string, { updated_at: string }> | null }>(
    db,
    sql`with ${sqlContest(team, contestId)}
        select exists (select 1 from c) as contest_found,
          (select json_object_agg(t.kind, json_build_object('updated_at', t.updated_at)) from email_texts t
           where t.contest_id = (select id from c)) as custom`,
  );
  if (!row?.contest_found) throw Errors.contestNotFound();
  return TEAM_EMAIL_KINDS.map((kind) => ({
    kind,
    custom: Boolean(row.custom?.[kind]),
    updatedAt: row.custom?.[kind] ? iso(row.custom[kind].updated_at) : null,
  }));
}

export async function writeEmailText(
  db: Db,
  team: Team,
  contestId: string,
  kind: TeamEmailKind,
  body: { subject: string; text: string },
  now: Date,
) {
  if (!isUuid(contestId)) throw Errors.contestNotFound();
  const t = parseTeamText(kind, body.subject, body.text);
  const row = await queryOne<TextRow>(
    db,
    sql`with ${sqlContest(team, contestId)}, w as (
          insert into email_texts (contest_id, kind, subject, text, updated_at)
          select c.id, ${kind}, ${t.subject}, ${t.text}, ${now.toISOString()}::timestamptz from c
          on conflict (contest_id, kind) do update set subject = excluded.subject, text = excluded.text, updated_at = excluded.updated_at
          returning subject, text, updated_at
        )
        select exists (select 1 from c) as contest_found, w.subject, w.text, true as custom, w.updated_at
        from (select 1) one left join w on true`,
  );
  if (!row?.contest_found) throw Errors.contestNotFound();
  return shape(kind, row);
}

/** Back to the default. */
export async function resetEmailText(db: Db, team: Team, contestId: string, kind: TeamEmailKind) {
  if (!isUuid(contestId)) throw Errors.contestNotFound();
  const d = sqlDefault(kind);
  const row = await queryOne<TextRow>(
    db,
    sql`with ${sqlContest(team, contestId)}, d as (
          delete from email_texts t using c where t.contest_id = c.id and t.kind = ${kind} returning 1
        )
        select exists (select 1 from c) as contest_found, ${d.subject} as subject, ${d.text} as text,
          false as custom, null::timestamptz as updated_at, (select count(*) from d) as deleted`,
  );
  if (!row?.contest_found) throw Errors.contestNotFound();
  return shape(kind, row);
}

/** The sample person a preview is written to. */
export const PREVIEW_SAMPLE = {
  name: 'Alex',
  code: 'SAMPLE-CODE-42',
  position: '42',
  reward: '20% off your next order',
};

/**
 * The email as it would go out to a sample person: the text given (not saved), else the saved
 * one, else the default; filled and turned into HTML by the same SQL that fills the real ones.
 */
export async function previewEmailText(
  db: Db,
  team: Team,
  contestId: string,
  kind: TeamEmailKind,
  body: { subject?: string; text?: string },
  publicUrl: string,
) {
  if (!isUuid(contestId)) throw Errors.contestNotFound();
  const d = sqlDefault(kind);
  // what is given is checked as a PUT would check it; the saved or default part fills the gap
  const subject = body.subject === undefined ? null : parseTeamSubject(kind, body.subject);
  const text = body.text === undefined ? null : parseTeamBody(kind, body.text);
  const sample = PREVIEW_SAMPLE;
  const link =
    kind === 'confirmation'
      ? sql`${`${publicUrl.replace(/\/$/, '')}/api/confirm/SAMPLE0000000000000000000000TOKEN`}::text`
      : kind === 'status-link'
        ? sql`coalesce(${sqlLandingUrl('c', publicUrl)}, 'https://example.com/contest') || '#ce-entry=SAMPLE'`
        : sql`coalesce(${sqlLandingUrl('c', publicUrl)}, '')`;
  const row = await queryOne<{ contest_found: boolean; subject: string; text: string; html: string }>(
    db,
    sql`with ${sqlContest(team, contestId)}, src as (
          select c.title, ${link} as link,
            coalesce(${subject}::text, t.subject, ${d.subject}) as subject,
            coalesce(${text}::text, t.text, ${d.text}) as text
          from c left join email_texts t on t.contest_id = c.id and t.kind = ${kind}
        ), v as (
          select src.*, jsonb_build_object('name', ${sample.name}::text, 'contest', src.title, 'link', src.link,
            'code', ${sample.code}::text, 'reward', ${kind === 'winner' ? sql`src.title` : sql`${sample.reward}::text`},
            'position', ${sample.position}::text) as vars
          from src
        )
        select exists (select 1 from c) as contest_found,
          (select ce_email_subject(ce_email_fill(v.subject, v.vars)) from v) as subject,
          (select ce_email_fill(v.text, v.vars) from v) as text,
          (select ce_email_html(v.text, v.vars) from v) as html`,
  );
  if (!row?.contest_found) throw Errors.contestNotFound();
  return { to: `${sample.name.toLowerCase()}@example.com`, subject: row.subject, text: row.text, html: row.html };
}
