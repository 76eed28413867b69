/**
 * Response schemas (valibot, rendered into the OpenAPI document by hono-openapi's resolver) of
 * the trust-and-safety routes: API-key list, manual bonus verify, entry review, and the `risk`
 * object entries carry.
 */
import { resolver } from 'hono-openapi';
import * as v from 'valibot';
import { RISK_REASONS } from '../sql/risk.js';

export const riskSchema = v.object({
  level: v.picklist(['none', 'review', 'high']),
  reasons: v.array(v.picklist(RISK_REASONS)),
  review: v.nullable(v.picklist(['approved', 'rejected'])),
});

const nullableString = v.nullable(v.string());

/** An entry as the detail shows it (email, name, phone masked for a masked public key). */
export const entryDetailSchema = v.object({
  id: v.string(),
  email: nullableString,
  name: nullableString,
  phone: nullableString,
  points: v.number(),
  emailConfirmed: v.boolean(),
  disqualified: v.boolean(),
  referralCode: nullableString,
  createdAt: v.string(),
  risk: riskSchema,
  pointsUsed: v.number(),
  contestId: v.string(),
  contestTitle: v.string(),
  referralsCount: v.number(),
  bonusActionsCompleted: v.number(),
  totalPurchaseValue: v.number(),
  totalPurchaseCount: v.number(),
  customFieldData: v.nullable(v.record(v.string(), v.unknown())),
});

export const apiKeySchema = v.object({
  id: v.string(),
  type: v.picklist(['public', 'private']),
  name: nullableString,
  prefix: v.string(),
  personalData: v.nullable(v.picklist(['full', 'masked'])),
  createdAt: v.string(),
  revokedAt: nullableString,
});

export const verifyResultSchema = v.object({
  completionStatus: v.picklist(['verified', 'rejected']),
  pointsAdded: v.number(),
  newTotalPoints: v.number(),
});

const errorSchema = v.object({ success: v.literal(false), error: v.string() });

/** `responses` for describeRoute: 200 with `{success: true, data}`, and the error envelope for `errors`. */
export function okResponses(data: v.GenericSchema, description: string, errors: Record<number, string> = {}) {
  const out: Record<
    string,
    { description: string; content: { 'application/json': { schema: ReturnType<typeof resolver> } } }
  > = {
    200: {
      description,
      content: { 'application/json': { schema: resolver(v.object({ success: v.literal(true), data })) } },
    },
  };
  for (const [status, message] of Object.entries(errors)) {
    out[status] = { description: message, content: { 'application/json': { schema: resolver(errorSchema) } } };
  }
  return out;
}
