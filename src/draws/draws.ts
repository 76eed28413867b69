/**
 * Giveaway draws with verifiable winners (docs/fairness.md "Verifying a draw").
 *
 * Commit freezes the contest's eligible entries as blocks of CSV lines (draw_blocks: entry-id
 * order, with the running sums of weights), hashes exactly the published CSV bytes, and keeps a
 * 32-byte seed secret behind its SHA-256. Reveal picks the winners with the published walk over
 * the HMAC stream. Both run inside the database (plpgsql functions of
 * src/db/functions/draws.sql): the snapshot, up to millions of rows, never travels to the application.
 *
 * One round trip per request: create is one statement (the function returns what the answer
 * needs); reveal and replace are one batch (the write, then the draw as it is now; the reveal's
 * second statement also records the draw.revealed event, in the same transaction).
 */
import { type SQL, sql } from 'drizzle-orm';
import { batch, type Db, iso, num, query } from '../db/client.js';
import type { Team } from '../db/team.js';
import type { RandomSource } from '../deps.js';
import { Errors } from '../errors.js';
import { newSeed } from '../instant-win/fairness-seed.js';
import { isUuid, randomUuid } from '../lib/crypto.js';
import { sqlEmitEvent, sqlEventDeliveries, sqlIso } from '../sql/events.js';
import { sqlEmail, sqlName } from '../sql/masking.js';
import { type SqlEmail, sqlQueueEmail } from '../sql/outbox.js';
import { pageOf, sqlPaged } from '../sql/paged.js';
import { sqlNotErased, sqlOfTeam } from '../sql/scope.js';
import { winnerContent } from './emails.js';

export type Weighting = 'equal' | 'points';

export interface CreateDrawInput {
  winners: number;
  weighting: Weighting;
  confirmedOnly: boolean;
  minPoints: number;
  excludePreviousWinners: boolean;
  label: string | null;
  /** email each winner at the reveal, and a replacement when it is drawn */
  notifyWinners?: boolean;
}

export interface DrawResultJson {
  position: number;
  entryId: string;
  email: string | null;
  name: string | null;
  weight: number;
  replaced: boolean;
  replacedReason: string | null;
}

export interface DrawJson {
  id: string;
  contestId: string;
  label: string | null;
  status: 'committed' | 'revealed';
  winners: number;
  weighting: Weighting;
  confirmedOnly: boolean;
  minPoints: number;
  excludePreviousWinners: boolean;
  eligibleCount: number;
  totalWeight: number;
  snapshotHash: string;
  seedHash: string;
  seed: string | null;
  publicRandomness: string | null;
  createdAt: string | null;
  revealedAt: string | null;
  notifyWinners: boolean;
  results: DrawResultJson[];
}

interface DrawRow {
  id: string;
  contest_id: string;
  label: string | null;
  status: 'committed' | 'revealed';
  winners: number;
  weighting: Weighting;
  confirmed_only: boolean;
  min_points: number;
  exclude_previous_winners: boolean;
  notify_winners: boolean;
  eligible_count: number;
  total_weight: string | number;
  snapshot_hash: string;
  seed_hash: string;
  seed: string | null;
  public_randomness: string | null;
  created_at: Date | string;
  revealed_at: Date | string | null;
  results: DrawResultJson[] | string | null;
}

/**
 * A draw's columns (alias `d`); the seed only once revealed. Erased entries show null email and
 * name; a public key of a team whose personal data is masked sees winners masked (as entries).
 */
const drawColumns = (
  team: Team,
) => sql`d.id, d.contest_id, d.label, d.status, d.winners, d.weighting, d.confirmed_only, d.min_points,
  d.exclude_previous_winners, d.notify_winners, d.eligible_count, d.total_weight, d.snapshot_hash, d.seed_hash,
  case when d.status = 'revealed' then encode(d.seed, 'hex') end as seed, d.public_randomness, d.created_at, d.revealed_at,
  coalesce((
    select json_agg(json_build_object('position', r.position, 'entryId', r.entry_id, 'email', ${sqlEmail(team, sql`e.email`)},
                                      'name', ${sqlName(team, sql`e.name`)}, 'weight', r.weight, 'replaced', r.replaced,
                                      'replacedReason', r.replaced_reason)
                    order by r.position)
    from draw_results r left join entries e on e.id = r.entry_id
    where r.draw_id = d.id), '[]'::json) as results`;

/**
 * `draw.revealed`: the draw as the API shows it (`drawId` for its id), from the row `x` of a
 * statement that selected drawColumns() of the draw that ce_draw_reveal() revealed in this very
 * transaction (it names it in the transaction-local setting ce.draw_revealed).
 */
const revealedEvent = (team: Team, now: Date) =>
  sqlEmitEvent(
    'ev_draw',
    'draw.revealed',
    sql`select ${team.id} as team_id, x.contest_id,
          json_build_object('drawId', x.id, 'contestId', x.contest_id, 'label', x.label, 'status', x.status, 'winners', x.winners,
            'weighting', x.weighting, 'confirmedOnly', x.confirmed_only, 'minPoints', x.min_points,
            'excludePreviousWinners', x.exclude_previous_winners, 'eligibleCount', x.eligible_count, 'totalWeight', x.total_weight,
            'snapshotHash', x.snapshot_hash, 'seedHash', x.seed_hash, 'seed', x.seed, 'publicRandomness', x.public_randomness,
            'createdAt', ${sqlIso(sql`x.created_at`)}, 'revealedAt', ${sqlIso(sql`x.revealed_at`)},
            'notifyWinners', x.notify_winners, 'results', x.results) as data
        from x where current_setting('ce.draw_revealed', true) = x.id::text`,
    now,
  );

export function drawJson(row: DrawRow): DrawJson {
  const results = (typeof row.results === 'string' ? JSON.parse(row.results) : (row.results ?? [])) as DrawResultJson[];
  return {
    id: row.id,
    contestId: row.contest_id,
    label: row.label,
    status: row.status,
    winners: num(row.winners),
    weighting: row.weighting,
    confirmedOnly: row.confirmed_only,
    minPoints: num(row.min_points),
    excludePreviousWinners: row.exclude_previous_winners,
    eligibleCount: num(row.eligible_count),
    totalWeight: num(row.total_weight),
    snapshotHash: row.snapshot_hash,
    seedHash: row.seed_hash,
    seed: row.seed,
    publicRandomness: row.public_randomness,
    createdAt: iso(row.created_at),
    revealedAt: iso(row.revealed_at),
    notifyWinners: row.notify_winners === true,
    results: results.map((r) => ({
      position: num(r.position),
      entryId: r.entryId,
      email: r.email,
      name: r.name,
      weight: num(r.weight),
      replaced: r.replaced,
      replacedReason: r.replacedReason,
    })),
  };
}

/**
 * The statement that answers one draw of the team (alone, or after a write in the same batch). It
 * only reads, except with `revealedAt`: then it also records the draw.revealed event when the
 * batch's first statement revealed the draw.
 */
const drawAnswerSql = (team: Team, drawId: string, opts: { revealedAt?: Date; notify?: NotifyWinners } = {}): SQL =>
  sql`with ${team.cte} x as (select ${drawColumns(team)} from draws d where d.id = ${drawId} and ${sqlOfTeam(team, 'd')})
      ${opts.revealedAt ? sql`, ${revealedEvent(team, opts.revealedAt)}` : sql``}
      ${opts.notify ? sql`, ${sqlNotifyWinners(team, opts.notify)}` : sql``}
      select *${deliveries(opts)} from x`;

/** the one ce_event_deliveries column of the events this answer records */
const deliveries = (opts: { revealedAt?: Date; notify?: NotifyWinners }): SQL => {
  const names = [...(opts.revealedAt ? ['ev_draw'] : []), ...(opts.notify ? ['ev_winner'] : [])];
  return names.length ? sql`, ${sqlEventDeliveries(...names)}` : sql``;
};

interface NotifyWinners {
  now: Date;
  mail: (p: { title: SQL; name: SQL; label: SQL }) => SqlEmail;
}

/**
 * CTEs `win`, `win_mail` and the `ev_winner` pair, after `x` (the draw, drawColumns): for a draw
 * with notifyWinners, each winner not notified yet (not replaced, with an email, not erased) is
 * marked notified, emailed and announced with `draw.winner_notified`, once. At the reveal that is
 * every winner; after a replacement, the new one.
 */
const sqlNotifyWinners = (team: Team, n: NotifyWinners): SQL => {
  const at = n.now.toISOString();
  return sql`win as (
        update draw_results r set notified_at = ${at}::timestamptz
        from x, entries e
        where r.draw_id = x.id and x.notify_winners and x.status = 'revealed' and not r.replaced and r.notified_at is null
          and e.id = r.entry_id and e.email is not null and ${sqlNotErased('e')}
        returning r.entry_id, r.position, e.email, e.name
      ), win_mail as (
        ${sqlQueueEmail(
          'winner',
          n.mail({ title: sql`c.title`, name: sql`win.name`, label: sql`coalesce(x.label, c.title)` }),
          at,
          {
            teamId: sql`c.team_id`,
            contestId: sql`c.id`,
            to: sql`win.email`,
            from: sql`win, x join contests c on c.id = x.contest_id`,
          },
        )}
      ), ${sqlEmitEvent(
        'ev_winner',
        'draw.winner_notified',
        sql`select ${team.id} as team_id, x.contest_id,
              json_build_object('drawId', x.id, 'contestId', x.contest_id, 'entryId', win.entry_id, 'position', win.position) as data
            from win, x`,
        n.now,
      )}`;
};

function fromRows(rows: readonly Record<string, unknown>[]): DrawJson {
  const row = rows[0] as DrawRow | undefined;
  if (!row) throw Errors.drawNotFound();
  return drawJson(row);
}

/** Commit: snapshot, seed, hashes; `201` with the draw in status committed. */
export async function createDraw(
  db: Db,
  random: RandomSource,
  team: Team,
  contestId: string,
  input: CreateDrawInput,
  now: Date,
): Promise<DrawJson> {
  if (!isUuid(contestId)) throw Errors.contestNotFound();
  const id = randomUuid(random);
  const seed = await newSeed(random);
  const at = now.toISOString();
  const commit = sql`with ${team.cte} x as (
          select * from ce_draw_commit(${id}::uuid, ${team.id}, ${contestId}::uuid, ${input.label}::text, ${input.winners}::int,
                                       ${input.weighting}::text, ${input.confirmedOnly}::boolean, ${input.minPoints}::int,
                                       ${input.excludePreviousWinners}::boolean, decode(${seed.seedHex}, 'hex'), ${seed.seedHash}::text,
                                       decode(${seed.ipadHex}, 'hex'), decode(${seed.opadHex}, 'hex'), ${at}::timestamptz)
        )
        select outcome, eligible_count, total_weight, snapshot_hash from x`;
  // notifyWinners is set by a second statement of the same batch (the commit function makes the row)
  const rows = (
    input.notifyWinners
      ? (await batch(db, [commit, sql`update draws set notify_winners = true where id = ${id}::uuid returning 1`]))[0]!
      : await query(db, commit)
  ) as { outcome: string; eligible_count: number; total_weight: string | number; snapshot_hash: string | null }[];
  const row = rows[0];
  if (!row || row.outcome === 'contest_not_found') throw Errors.contestNotFound();
  if (row.outcome === 'no_eligible') throw Errors.noEligibleEntries();
  return {
    id,
    contestId: contestId.toLowerCase(),
    label: input.label,
    status: 'committed',
    winners: input.winners,
    weighting: input.weighting,
    confirmedOnly: input.confirmedOnly,
    minPoints: input.minPoints,
    excludePreviousWinners: input.excludePreviousWinners,
    eligibleCount: num(row.eligible_count),
    totalWeight: num(row.total_weight),
    snapshotHash: row.snapshot_hash!,
    seedHash: seed.seedHash,
    seed: null,
    publicRandomness: null,
    createdAt: at,
    revealedAt: null,
    notifyWinners: input.notifyWinners === true,
    results: [],
  };
}

export async function getDraw(db: Db, team: Team, drawId: string): Promise<DrawJson> {
  if (!isUuid(drawId)) throw Errors.drawNotFound();
  return fromRows(await query(db, drawAnswerSql(team, drawId)));
}

/** The contest's draws, newest first; unknown contest: 404 Contest not found. */
export async function listDraws(db: Db, team: Team, contestId: string, opts: { limit: number; offset: number }) {
  if (!isUuid(contestId)) throw Errors.contestNotFound();
  const rows = await query<DrawRow & { found: boolean; total: string | number; id: string | null }>(
    db,
    sql`with ${team.cte} c as (select c.id from contests c where c.id = ${contestId} and ${sqlOfTeam(team, 'c')})
        ${sqlPaged({
          head: sql`exists (select 1 from c) as found`,
          counted: sql`from draws d where d.contest_id in (select id from c)`,
          page: sql`select ${drawColumns(team)} from draws d where d.contest_id in (select id from c)
            order by d.created_at desc, d.id desc limit ${opts.limit} offset ${opts.offset}`,
        })}`,
  );
  if (!rows[0]?.found) throw Errors.contestNotFound();
  return pageOf(rows, drawJson);
}

/** Reveal: picks min(winners, eligibleCount) winners, shows the seed. */
export async function revealDraw(
  db: Db,
  team: Team,
  drawId: string,
  publicRandomness: string | null,
  now: Date,
): Promise<DrawJson> {
  if (!isUuid(drawId)) throw Errors.drawNotFound();
  const [act, read] = await batch(db, [
    sql`with ${team.cte} x as (select ce_draw_reveal(${drawId}::uuid, ${team.id}, ${publicRandomness}::text, ${now.toISOString()}::timestamptz) as outcome)
        select outcome from x`,
    drawAnswerSql(team, drawId, { revealedAt: now, notify: { now, mail: winnerContent(drawId) } }),
  ]);
  const outcome = act![0]?.outcome as string | undefined;
  if (outcome === 'not_found' || !outcome) throw Errors.drawNotFound();
  if (outcome === 'already_revealed') throw Errors.drawAlreadyRevealed();
  return fromRows(read!);
}

/** Replace: the winner is marked replaced (with the reason) and the next pick of the stream is appended. */
export async function replaceWinner(
  db: Db,
  team: Team,
  drawId: string,
  entryId: string,
  reason: string,
  now: Date,
): Promise<DrawJson> {
  if (!isUuid(drawId)) throw Errors.drawNotFound();
  const [act, read] = await batch(db, [
    sql`with ${team.cte} x as (
          select ce_draw_replace(${drawId}::uuid, ${team.id}, ${isUuid(entryId) ? entryId : null}::uuid, ${reason}::text,
                                 ${now.toISOString()}::timestamptz) as outcome)
        select outcome from x`,
    drawAnswerSql(team, drawId, { notify: { now, mail: winnerContent(drawId) } }),
  ]);
  switch (act![0]?.outcome as string | undefined) {
    case 'ok':
      return fromRows(read!);
    case 'not_revealed':
      throw Errors.drawNotRevealed();
    case 'winner_not_found':
      throw Errors.winnerNotFound();
    case 'no_eligible':
      throw Errors.noEligibleEntries();
    default:
      throw Errors.drawNotFound();
  }
}

export const SNAPSHOT_HEADER = 'entry_id,weight,email_sha256\n';

/**
 * One keyset page of the snapshot CSV: the lines of the blocks after the block whose running sum
 * is `after` (-1: from the start), as many as fit in about `maxBytes` (at least one block), as
 * text. `found` false: no such draw for this team; `more`: blocks remain after this page.
 * Only the page's blocks are read (a block's size is known without reading it).
 */
export async function snapshotPage(db: Db, team: Team, drawId: string, after: number, maxBytes: number) {
  const rows = await query<{
    found: boolean;
    revealed: boolean;
    contest_id: string | null;
    last: string | number | null;
    more: boolean;
    text: string;
  }>(
    db,
    sql`with ${team.cte} d as (select d.id, d.status, d.contest_id from draws d where d.id = ${drawId} and ${sqlOfTeam(team, 'd')}),
        blocks as (
          select cum_end, lines, sum(octet_length(lines)) over (order by cum_end) - octet_length(lines) as before
          from draw_blocks where draw_id = (select id from d) and cum_end > ${after}::bigint
        ),
        page as (select cum_end, lines from blocks where before < ${maxBytes}::bigint)
        select exists (select 1 from d) as found, coalesce((select status = 'revealed' from d), false) as revealed,
               (select contest_id from d) as contest_id,
               (select max(cum_end) from page) as last,
               exists (select 1 from blocks where before >= ${maxBytes}::bigint) as more,
               coalesce((select string_agg(lines, '' order by cum_end) from page), '') as text`,
  );
  const row = rows[0]!;
  return {
    found: row.found,
    revealed: row.revealed,
    contestId: row.contest_id,
    last: row.last === null ? after : num(row.last),
    more: row.more,
    text: row.text,
  };
}
