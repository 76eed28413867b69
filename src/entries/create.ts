/**
 * Entry create (POST /contests/{contestId}/entries, and the inbound sign-up webhooks): the
 * body validated, then the shared entry create statement (src/sql/entry-create.ts) as it is,
 * with nothing added. A page's sign-up is the same statement with its own parts
 * (src/signups/signup.ts).
 */
import type { Db } from '../db/client.js';
import type { Team } from '../db/team.js';
import type { RandomSource } from '../deps.js';
import { Errors } from '../errors.js';
import { isUuid } from '../lib/crypto.js';
import { type EntryCreateInput, type EntryCreateResult, noExtension, runEntryCreate } from '../sql/entry-create.js';
import { riskInputSchema } from '../sql/risk.js';
import { createEntrySchema, parseEntryBody } from './entries.js';

export interface CreateEntryInput {
  email?: string;
  phone?: string;
  name?: string;
  referralCode?: string;
  customFieldData?: Record<string, unknown>;
  /** the participant's IP address and user agent as the team's server saw them (risk signals; stored only as salted hashes) */
  ipAddress?: string | null;
  userAgent?: string | null;
}

/**
 * Validates an entry's fields: a 400 naming the field for invalid input,
 * Errors.emailOrPhoneRequired() when both are missing, Errors.contestNotFound() for a contest id
 * that is not one.
 */
export function entryCreateInput(contestId: string, input: CreateEntryInput): EntryCreateInput {
  const {
    email = null,
    phone = null,
    name = null,
    referralCode = null,
    customFieldData = null,
  } = parseEntryBody(createEntrySchema, input);
  const { ipAddress = null, userAgent = null } = parseEntryBody(riskInputSchema, {
    ipAddress: input.ipAddress,
    userAgent: input.userAgent,
  });
  if (!email && !phone) throw Errors.emailOrPhoneRequired();
  if (!isUuid(contestId)) throw Errors.contestNotFound();
  return { email, phone, name, referralCode, customFieldData, ipAddress, userAgent };
}

/**
 * Creates an entry, or finds the one with the same email (phone for phone-only entries) in
 * the contest. Throws Errors.contestNotFound() when the contest is not the team's,
 * Errors.contestNotActive() when it is not open, Errors.emailOrPhoneRequired() when both are
 * missing, a 400 naming the field for invalid input.
 */
export async function createEntry(
  db: Db,
  ctx: {
    now: Date;
    random: RandomSource;
    publicUrl: string;
    ipHashSalt?: () => Promise<string>;
    /** how the entry comes, when not through the API: an inbound webhook */
    source?: 'webhook';
  },
  contest: { id: string; team: Team },
  input: CreateEntryInput,
): Promise<EntryCreateResult> {
  const parsed = entryCreateInput(contest.id, input);
  return runEntryCreate(db, { ...ctx, source: ctx.source ?? 'api' }, contest, parsed, noExtension(ctx.now));
}
