/**
 * A person at each tool (docs/integrations.md): created or updated with the properties the
 * team's emails use, subscribed only with their consent; many people at once through each
 * provider's bulk endpoint (a backfill, or a busy minute); deleted by an erasure.
 *
 * - One person: Klaviyo `POST /api/profile-import`, then a subscription job (consent) or the
 *   list's relationship (none); Mailchimp `PUT /3.0/lists/{id}/members/{hash}` (`status_if_new`
 *   keeps an existing member's status without consent); HubSpot batch upsert of one.
 * - Many: Klaviyo `POST /api/profile-bulk-import-jobs` (at most 10,000 profiles a job; those
 *   without consent with the list as its relationship), then subscription jobs of at most 1,000
 *   for those with it; Mailchimp `POST /3.0/batches` of the same PUTs (at most 500 a batch);
 *   HubSpot batch upserts of 100. One outcome for the group: a failure sends it all again
 *   later (every call is an upsert).
 */
import type { Provider } from '../lib/integrations.js';
import { HUBSPOT_GROUP, PERSON_PROPERTIES } from './properties.js';
import {
  type Credentials,
  callInOrder,
  hubspotBase,
  hubspotHeaders,
  klaviyoBase,
  klaviyoHeaders,
  mailchimpBase,
  mailchimpHeaders,
  mailchimpMemberPath,
  type ProviderCall,
  type ProviderContext,
  type SyncOutcome,
  subscriberHash,
  type Target,
} from './providers.js';

/** A person as a connection sends them: who they are and what the team's emails can use. */
export interface Person {
  email: string;
  name: string | null;
  /** the person agreed to the contest's consent text (marketing consent): only then do they subscribe */
  consented: boolean;
  customFields: Record<string, unknown> | null;
  contest: string;
  referralLink: string;
  referralCode: string;
  pageLink: string;
  position: number | null;
  points: number;
  confirmedReferrals: number;
}

/** the person's properties, by key (PERSON_PROPERTIES) */
function properties(p: Person): Record<(typeof PERSON_PROPERTIES)[number]['key'], string | number | null> {
  return {
    contest: p.contest,
    referral_link: p.referralLink,
    referral_code: p.referralCode,
    page_link: p.pageLink,
    position: p.position,
    points: p.points,
    confirmed_referrals: p.confirmedReferrals,
  };
}

/** Klaviyo's profile of a person (profile-import, and each profile of a bulk import job). */
const klaviyoProfile = (p: Person) => ({
  type: 'profile',
  attributes: {
    email: p.email,
    ...(p.name ? { first_name: p.name } : {}),
    // no nulls: the bulk import cannot set one (it keeps the value the profile had)
    properties: Object.fromEntries(
      Object.entries({
        ...Object.fromEntries(Object.entries(properties(p)).map(([k, v]) => [`${HUBSPOT_GROUP}_${k}`, v])),
        ...(p.customFields ?? {}),
      }).filter(([, v]) => v !== null && v !== undefined),
    ),
  },
});

/** Klaviyo's subscription job of people who consented, to the list. */
const klaviyoSubscription = (people: Person[], listId: string) => ({
  data: {
    type: 'profile-subscription-bulk-create-job',
    attributes: {
      profiles: {
        data: people.map((p) => ({
          type: 'profile',
          attributes: { email: p.email, subscriptions: { email: { marketing: { consent: 'SUBSCRIBED' } } } },
        })),
      },
      historical_import: false,
    },
    relationships: { list: { data: { type: 'list', id: listId } } },
  },
});

/** Mailchimp's member: subscribed with consent; without, a new member is transactional and an existing one keeps its status. */
function mailchimpMember(p: Person) {
  const props = properties(p);
  const merge: Record<string, string | number> = {};
  for (const f of PERSON_PROPERTIES) {
    const v = props[f.key];
    if (v !== null) merge[f.mailchimpTag] = v;
  }
  if (p.name) merge.FNAME = p.name;
  return {
    email_address: p.email,
    ...(p.consented ? { status: 'subscribed' } : {}),
    status_if_new: p.consented ? 'subscribed' : 'transactional',
    merge_fields: merge,
  };
}

/** HubSpot's upsert input of a person, by email. */
function hubspotInput(p: Person) {
  const values: Record<string, string> = { email: p.email };
  if (p.name) values.firstname = p.name;
  for (const [k, v] of Object.entries(properties(p))) if (v !== null) values[`${HUBSPOT_GROUP}_${k}`] = String(v);
  return { idProperty: 'email', id: p.email, properties: values };
}

const chunks = <T>(xs: T[], n: number): T[][] =>
  Array.from({ length: Math.ceil(xs.length / n) }, (_, i) => xs.slice(i * n, i * n + n));

const profileId = (body: unknown) => (body as { data?: { id?: string } } | null)?.data?.id;

/** Creates or updates the person at the provider, subscribed only with their consent. */
export async function syncPerson(
  ctx: ProviderContext,
  provider: Provider,
  credentials: Credentials,
  target: Target,
  person: Person,
): Promise<SyncOutcome> {
  if (provider === 'klaviyo') {
    const { apiKey } = credentials as { apiKey: string };
    const { listId } = target as { listId: string };
    const base = klaviyoBase(ctx);
    return callInOrder(ctx, provider, [
      {
        url: `${base}/api/profile-import`,
        method: 'POST',
        headers: klaviyoHeaders(apiKey, true),
        body: { data: klaviyoProfile(person) },
      },
      person.consented
        ? {
            url: `${base}/api/profile-subscription-bulk-create-jobs`,
            method: 'POST',
            headers: klaviyoHeaders(apiKey, true),
            body: klaviyoSubscription([person], listId),
          }
        : (imported) => ({
            url: `${base}/api/lists/${encodeURIComponent(listId)}/relationships/profiles`,
            method: 'POST',
            headers: klaviyoHeaders(apiKey, true),
            body: {
              data: [{ type: 'profile', id: imported.status === null ? undefined : profileId(imported.body) }],
            },
          }),
    ]);
  }
  if (provider === 'mailchimp') {
    const { apiKey } = credentials as { apiKey: string };
    const { audienceId } = target as { audienceId: string };
    return callInOrder(ctx, provider, [
      {
        url: `${mailchimpBase(ctx, apiKey)}${mailchimpMemberPath(audienceId, person.email)}`,
        method: 'PUT',
        headers: mailchimpHeaders(apiKey, true),
        body: mailchimpMember(person),
      },
    ]);
  }
  const { accessToken } = credentials as { accessToken: string };
  return callInOrder(ctx, provider, [
    {
      url: `${hubspotBase(ctx)}/crm/v3/objects/contacts/batch/upsert`,
      method: 'POST',
      headers: hubspotHeaders(accessToken, true),
      body: { inputs: [hubspotInput(person)] },
    },
  ]);
}

/** Many people at once, through each provider's bulk endpoint (one outcome for them all). */
export async function syncPeople(
  ctx: ProviderContext,
  provider: Provider,
  credentials: Credentials,
  target: Target,
  people: Person[],
): Promise<SyncOutcome> {
  const calls: ProviderCall[] = [];
  if (provider === 'klaviyo') {
    const { apiKey } = credentials as { apiKey: string };
    const { listId } = target as { listId: string };
    const url = `${klaviyoBase(ctx)}/api/profile-bulk-import-jobs`;
    const headers = klaviyoHeaders(apiKey, true);
    const job = (group: Person[], list: boolean) => ({
      data: {
        type: 'profile-bulk-import-job',
        attributes: { profiles: { data: group.map(klaviyoProfile) } },
        ...(list ? { relationships: { lists: { data: [{ type: 'list', id: listId }] } } } : {}),
      },
    });
    const without = people.filter((p) => !p.consented);
    const withConsent = people.filter((p) => p.consented);
    for (const g of chunks(without, 10_000)) calls.push({ url, method: 'POST', headers, body: job(g, true) });
    for (const g of chunks(withConsent, 10_000)) calls.push({ url, method: 'POST', headers, body: job(g, false) });
    for (const g of chunks(withConsent, 1_000))
      calls.push({
        url: `${klaviyoBase(ctx)}/api/profile-subscription-bulk-create-jobs`,
        method: 'POST',
        headers,
        body: klaviyoSubscription(g, listId),
      });
  } else if (provider === 'mailchimp') {
    const { apiKey } = credentials as { apiKey: string };
    const { audienceId } = target as { audienceId: string };
    for (const g of chunks(people, 500))
      calls.push({
        url: `${mailchimpBase(ctx, apiKey)}/batches`,
        method: 'POST',
        headers: mailchimpHeaders(apiKey, true),
        body: {
          operations: g.map((p) => ({
            method: 'PUT',
            path: mailchimpMemberPath(audienceId, p.email),
            operation_id: subscriberHash(p.email),
            body: JSON.stringify(mailchimpMember(p)),
          })),
        },
      });
  } else {
    const { accessToken } = credentials as { accessToken: string };
    for (const g of chunks(people, 100))
      calls.push({
        url: `${hubspotBase(ctx)}/crm/v3/objects/contacts/batch/upsert`,
        method: 'POST',
        headers: hubspotHeaders(accessToken, true),
        body: { inputs: g.map(hubspotInput) },
      });
  }
  return callInOrder(ctx, provider, calls);
}

/** Deletes the person of `email` at the provider, as each one's privacy deletion does it. */
export async function erasePerson(
  ctx: ProviderContext,
  provider: Provider,
  credentials: Credentials,
  target: Target,
  email: string,
): Promise<SyncOutcome> {
  let call: ProviderCall;
  if (provider === 'klaviyo') {
    const { apiKey } = credentials as { apiKey: string };
    call = {
      url: `${klaviyoBase(ctx)}/api/data-privacy-deletion-jobs`,
      method: 'POST',
      headers: klaviyoHeaders(apiKey, true),
      body: {
        data: {
          type: 'data-privacy-deletion-job',
          attributes: { profile: { data: { type: 'profile', attributes: { email } } } },
        },
      },
    };
  } else if (provider === 'mailchimp') {
    const { apiKey } = credentials as { apiKey: string };
    const { audienceId } = target as { audienceId: string };
    call = {
      url: `${mailchimpBase(ctx, apiKey)}${mailchimpMemberPath(audienceId, email)}/actions/delete-permanent`,
      method: 'POST',
      headers: mailchimpHeaders(apiKey),
    };
  } else {
    const { accessToken } = credentials as { accessToken: string };
    call = {
      url: `${hubspotBase(ctx)}/crm/v3/objects/contacts/gdpr-delete`,
      method: 'POST',
      headers: hubspotHeaders(accessToken, true),
      body: { idProperty: 'email', objectId: email },
    };
  }
  // a person the tool does not have is as deleted as can be (Klaviyo's job answers 202 either way)
  return callInOrder(ctx, provider, [call], { result: 'delivered', status: 404 });
}
