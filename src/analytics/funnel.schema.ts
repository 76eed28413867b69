/** The funnel's answer (src/analytics/funnel.ts). */
import * as v from 'valibot';
import { nonNegInt, timestamp } from '../http/schemas.js';
import { SHARE_CHANNELS } from '../lib/share-channels.js';

const counts = {
  views: v.pipe(
    nonNegInt,
    v.description('page views (POST /contests/{id}/views: the sign-up widget once per browser and day)'),
  ),
  visits: v.pipe(nonNegInt, v.description('share-link visits (POST /contests/{id}/visits)')),
  signups: v.pipe(nonNegInt, v.description('entries created')),
  confirmed: v.pipe(nonNegInt, v.description('emails confirmed (when confirmation is off: at creation)')),
  referredSignups: v.pipe(nonNegInt, v.description('entries created with a referral code')),
  referredConfirmed: v.pipe(nonNegInt, v.description('emails of referred entries confirmed')),
  viralCoefficient: v.pipe(
    v.nullable(v.number()),
    v.description(
      'confirmed referred entries per confirmed entry (referredConfirmed / confirmed), 3 decimals; null when none confirmed',
    ),
  ),
};

export const Funnel = v.strictObject({
  interval: v.picklist(['hour', 'day']),
  from: v.pipe(timestamp, v.description('start of the first bucket')),
  to: v.pipe(timestamp, v.description('start of the last bucket')),
  totals: v.pipe(v.strictObject(counts), v.description('the whole range')),
  sources: v.pipe(
    v.strictObject({
      api: v.pipe(nonNegInt, v.description("created by the team's server (POST /contests/{id}/entries)")),
      signup: v.pipe(nonNegInt, v.description('signed up from a page (POST /contests/{id}/signup)')),
      instantWin: v.pipe(nonNegInt, v.description('made by claiming an instant-win prize')),
      webhook: v.pipe(nonNegInt, v.description('made by an inbound sign-up webhook')),
    }),
    v.description('sign-ups of the range by how they came'),
  ),
  buckets: v.array(v.strictObject({ start: timestamp, ...counts })),
  channels: v.pipe(
    v.array(
      v.strictObject({
        channel: v.picklist(SHARE_CHANNELS),
        visits: v.pipe(nonNegInt, v.description('visits of share links of this channel (`via=`)')),
        shares: v.pipe(nonNegInt, v.description('clicks on share buttons of this channel')),
        signups: v.pipe(nonNegInt, v.description('entries that came by this channel')),
        confirmed: v.pipe(nonNegInt, v.description('of them, confirmed in the range')),
      }),
    ),
    v.description('the range by share channel, every channel in a fixed order (zeros too)'),
  ),
  topReferrers: v.pipe(
    v.array(
      v.strictObject({
        entryId: v.string(),
        email: v.nullable(v.string()),
        name: v.nullable(v.string()),
        visits: v.pipe(nonNegInt, v.description("visits of this entry's share link in the range")),
        referredSignups: v.pipe(nonNegInt, v.description('entries created in the range with their code')),
      }),
    ),
    v.description('the entries whose code brought the most sign-ups in the range (at most 10), most first'),
  ),
});

export type Funnel = v.InferOutput<typeof Funnel>;
