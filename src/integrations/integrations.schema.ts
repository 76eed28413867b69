/** The other tools a team connects: the bodies and answers of /api/v1/integrations. */
import * as v from 'valibot';
import { DELIVERY_STATUSES } from '../events/endpoints.js';
import { deliveriesQuery } from '../events/endpoints.schema.js';
import { timestamp, uuid } from '../http/schemas.js';
import { PROVIDERS } from '../lib/integrations.js';

export const CONTESTS_MAX = 100;

export const KLAVIYO_KEY = /^pk_[A-Za-z0-9]{20,100}$/;
export const MAILCHIMP_KEY = /^[0-9a-f]{32}-[a-z]{2,4}\d{1,3}$/;
export const HUBSPOT_TOKEN = /^[A-Za-z0-9_-]{20,300}$/;
const LIST_ID = /^[A-Za-z0-9]{1,64}$/;

const klaviyoKey = v.pipe(
  v.string('credentials.apiKey must be a Klaviyo private API key (pk_…)'),
  v.trim(),
  v.regex(KLAVIYO_KEY, 'credentials.apiKey must be a Klaviyo private API key (pk_…)'),
);
const mailchimpKey = v.pipe(
  v.string('credentials.apiKey must be a Mailchimp API key with its data centre (…-us21)'),
  v.trim(),
  v.regex(MAILCHIMP_KEY, 'credentials.apiKey must be a Mailchimp API key with its data centre (…-us21)'),
);
const hubspotToken = v.pipe(
  v.string("credentials.accessToken must be a HubSpot private app's access token"),
  v.trim(),
  v.regex(HUBSPOT_TOKEN, "credentials.accessToken must be a HubSpot private app's access token"),
);
const listId = v.pipe(
  v.string('target.listId must be a Klaviyo list id'),
  v.regex(LIST_ID, 'target.listId must be a Klaviyo list id'),
);
const audienceId = v.pipe(
  v.string('target.audienceId must be a Mailchimp audience id'),
  v.regex(LIST_ID, 'target.audienceId must be a Mailchimp audience id'),
);
export const contestsField = v.pipe(
  v.union(
    [v.literal('all'), v.pipe(v.array(v.pipe(v.string(), v.uuid())), v.minLength(1), v.maxLength(CONTESTS_MAX))],
    `contests must be "all" or a list of 1 to ${CONTESTS_MAX} contest ids`,
  ),
  v.description("the contests whose people it receives: `all` (the default: the team's, new ones included) or ids"),
);

const KLAVIYO_CREDENTIALS = v.strictObject({ apiKey: klaviyoKey }, 'credentials must be {apiKey} for Klaviyo');
const MAILCHIMP_CREDENTIALS = v.strictObject({ apiKey: mailchimpKey }, 'credentials must be {apiKey} for Mailchimp');
const HUBSPOT_CREDENTIALS = v.strictObject(
  { accessToken: hubspotToken },
  'credentials must be {accessToken} for HubSpot',
);
const KLAVIYO_TARGET = v.strictObject({ listId }, 'target must be {listId} for Klaviyo');
const MAILCHIMP_TARGET = v.strictObject({ audienceId }, 'target must be {audienceId} for Mailchimp');
const HUBSPOT_TARGET = v.strictObject({}, 'target must be {} for HubSpot (contacts need no list)');

const common = {
  contests: v.optional(contestsField),
  enabled: v.optional(v.boolean('enabled must be a boolean')),
};

export const CreateIntegration = v.variant(
  'provider',
  [
    v.object({
      provider: v.literal('klaviyo'),
      credentials: KLAVIYO_CREDENTIALS,
      target: KLAVIYO_TARGET,
      ...common,
    }),
    v.object({
      provider: v.literal('mailchimp'),
      credentials: MAILCHIMP_CREDENTIALS,
      target: MAILCHIMP_TARGET,
      ...common,
    }),
    v.object({
      provider: v.literal('hubspot'),
      credentials: HUBSPOT_CREDENTIALS,
      target: v.optional(HUBSPOT_TARGET, {}),
      ...common,
    }),
  ],
  `provider must be one of ${PROVIDERS.join(', ')}`,
);
export type CreateIntegrationBody = v.InferOutput<typeof CreateIntegration>;

/** PATCH: any part; credentials and target are checked against the connection's provider. */
export const UpdateIntegration = v.object({
  credentials: v.optional(
    v.union([KLAVIYO_CREDENTIALS, MAILCHIMP_CREDENTIALS, HUBSPOT_CREDENTIALS], 'Invalid credentials'),
  ),
  target: v.optional(v.union([KLAVIYO_TARGET, MAILCHIMP_TARGET, HUBSPOT_TARGET], 'Invalid target')),
  ...common,
});
export type UpdateIntegrationBody = v.InferOutput<typeof UpdateIntegration>;

export const Integration = v.strictObject({
  id: uuid,
  provider: v.picklist(PROVIDERS),
  credentials: v.pipe(
    v.strictObject({ hint: v.string() }),
    v.description('never the credential itself: its last 4 characters (`…a1b2`)'),
  ),
  target: v.record(v.string(), v.string()),
  contests: v.union([v.literal('all'), v.array(uuid)]),
  enabled: v.boolean(),
  createdAt: timestamp,
  updatedAt: timestamp,
});

export const IntegrationTest = v.strictObject({
  passed: v.pipe(v.boolean(), v.description('the credential works and the target exists')),
  providerStatus: v.pipe(
    v.nullable(v.number()),
    v.description("the provider's HTTP status of the call that decided it; null when it did not answer"),
  ),
  message: v.pipe(v.string(), v.description("what happened: on a failure, the provider's own words")),
  created: v.pipe(
    v.array(v.string()),
    v.description(
      "what the test made at the provider: Mailchimp merge fields, HubSpot's property group and properties",
    ),
  ),
});

export const IntegrationDelivery = v.strictObject({
  id: uuid,
  kind: v.pipe(
    v.picklist(['person', 'event', 'erase']),
    v.description('`person`: created or updated; `event`: something they did or won; `erase`: deleted (an erasure)'),
  ),
  entryId: uuid,
  event: v.pipe(v.nullable(v.string()), v.description("an `event` delivery's event type (`entry.confirmed`, …)")),
  status: v.picklist(DELIVERY_STATUSES),
  attempts: v.number(),
  providerStatus: v.pipe(v.nullable(v.number()), v.description("the provider's HTTP status of the last attempt")),
  lastError: v.pipe(v.nullable(v.string()), v.description("the last failure, in the provider's own words")),
  nextAttemptAt: v.pipe(v.nullable(timestamp), v.description('when the job sends it (pending only)')),
  deliveredAt: v.nullable(timestamp),
  createdAt: timestamp,
});

/** The outbound events' deliveries query (page, limit, status), and a connection's own filters. */
export const IntegrationDeliveriesQuery = v.object({
  ...deliveriesQuery.entries,
  kind: v.optional(
    v.pipe(v.picklist(['person', 'event', 'erase'], 'Invalid kind'), v.description('person, event or erase')),
  ),
  entryId: v.optional(
    v.pipe(
      v.string(),
      v.uuid('Invalid entryId'),
      v.description("one person's deliveries (an erased entry's too: what each tool was asked to delete)"),
    ),
  ),
});

export const Backfill = v.strictObject({
  id: uuid,
  total: v.pipe(
    v.number(),
    v.description('the confirmed people it owed (those already waiting are sent by their own delivery)'),
  ),
  delivered: v.number(),
  pending: v.number(),
  failed: v.number(),
  done: v.pipe(v.boolean(), v.description('nothing of it is waiting any more')),
  startedAt: timestamp,
});
