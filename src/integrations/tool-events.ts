/**
 * Events as each tool names them (docs/integrations.md): what a confirmed person did or won,
 * sent by the every-minute job from the `event` deliveries the events' trigger wrote
 * (src/db/functions/integrations.sql: the types are ce_integrations_take's, held to TOOL_EVENTS
 * by a test).
 *
 * - Klaviyo: `POST /api/events` `{data: {type: "event", attributes: {properties, time, unique_id,
 *   metric: {data: {type: "metric", attributes: {name}}}, profile: {data: {type: "profile",
 *   attributes: {email}}}}}}`, 202. `unique_id` (the event and the person) makes a repeat a no-op.
 * - Mailchimp: `POST /3.0/lists/{audienceId}/members/{hash}/events` `{name (2-30 of a-z 0-9 _ -),
 *   properties (strings), occurred_at}`, 204; and the event's tag, `POST …/members/{hash}/tags`
 *   `{tags: [{name, status: "active"}]}`, 204. A member Mailchimp does not have yet (404) is tried
 *   again: the person's own delivery, owed by the same event, makes them.
 * - HubSpot: the contact's `contest_engine_last_event…` properties (HUBSPOT_EVENT_PROPERTIES),
 *   by the same batch upsert as the person.
 */
import type { Provider } from '../lib/integrations.js';
import { HUBSPOT_GROUP } from './properties.js';
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
  type Target,
} from './providers.js';

/** Each event type the tools take: its name in Klaviyo and HubSpot, and Mailchimp's event name. */
export const TOOL_EVENTS = {
  // joined: made confirmed (no confirmation asked), or confirmed later; never both
  'entry.created': { label: 'Joined contest', mailchimp: 'joined_contest' },
  'entry.confirmed': { label: 'Joined contest', mailchimp: 'joined_contest' },
  'referral.credited': { label: 'Referred a friend', mailchimp: 'referred_friend' },
  'reward.unlocked': { label: 'Unlocked reward', mailchimp: 'unlocked_reward' },
  'reward.code_given': { label: 'Received reward code', mailchimp: 'received_reward_code' },
  'draw.revealed': { label: 'Won draw', mailchimp: 'won_draw' },
  'instant_win.claimed': { label: 'Claimed prize', mailchimp: 'claimed_prize' },
} as const;
export type ToolEventType = keyof typeof TOOL_EVENTS;

/** One event about one person, as the deliverer read it. */
export interface ToolEvent {
  /** the event's id and the person's entry id: Klaviyo's unique_id is made of both */
  id: string;
  entryId: string;
  type: ToolEventType;
  data: Record<string, unknown>;
  at: string;
  email: string;
  contest: string;
}

const str = (v: unknown) => (typeof v === 'string' ? v : v === null || v === undefined ? null : String(v));

/** What the event says, as properties the team's emails and flows can use (strings, none empty). */
export function eventProperties(e: ToolEvent): Record<string, string> {
  const d = e.data;
  const out: Record<string, string | null> = { contest: e.contest };
  if (e.type === 'referral.credited') out.points = str(d.advocatePoints);
  if (e.type === 'reward.unlocked' || e.type === 'reward.code_given') {
    out.reward = str(d.rewardName);
    out.code = str(d.code);
  }
  if (e.type === 'draw.revealed') {
    out.draw = str(d.label);
    const mine = (d.results as { entryId?: string; position?: number }[] | undefined)?.find(
      (r) => r.entryId === e.entryId,
    );
    out.position = str(mine?.position);
  }
  if (e.type === 'instant_win.claimed') out.prize = str(d.prizeName);
  return Object.fromEntries(Object.entries(out).filter((x): x is [string, string] => !!x[1]));
}

/** Mailchimp's tag of an event (at most 100 characters), if it has one. */
export function mailchimpTag(e: ToolEvent): string | null {
  const p = eventProperties(e);
  const tag =
    e.type === 'entry.confirmed' || e.type === 'entry.created'
      ? p.contest
      : e.type === 'draw.revealed'
        ? `Winner: ${p.contest}`
        : e.type === 'reward.unlocked' && p.reward
          ? `Reward: ${p.reward}`
          : e.type === 'instant_win.claimed' && p.prize
            ? `Prize: ${p.prize}`
            : null;
  return tag ? tag.slice(0, 100) : null;
}

/** HubSpot's contact properties of an event. */
function hubspotProperties(e: ToolEvent): Record<string, string> {
  const p = eventProperties(e);
  const out: Record<string, string> = { last_event: TOOL_EVENTS[e.type].label, last_event_at: e.at };
  if (p.reward) out.last_reward = p.reward;
  if (p.code) out.last_reward_code = p.code;
  if (e.type === 'draw.revealed') out.won_draw = p.draw ?? p.contest!;
  if (p.prize) out.last_prize = p.prize;
  return Object.fromEntries(Object.entries(out).map(([k, v]) => [`${HUBSPOT_GROUP}_${k}`, v]));
}

/** Sends one event to one tool. */
export async function sendEvent(
  ctx: ProviderContext,
  provider: Provider,
  credentials: Credentials,
  target: Target,
  e: ToolEvent,
): Promise<SyncOutcome> {
  const name = TOOL_EVENTS[e.type];
  const calls: ProviderCall[] = [];
  if (provider === 'klaviyo') {
    const { apiKey } = credentials as { apiKey: string };
    calls.push({
      url: `${klaviyoBase(ctx)}/api/events`,
      method: 'POST',
      headers: klaviyoHeaders(apiKey, true),
      body: {
        data: {
          type: 'event',
          attributes: {
            properties: eventProperties(e),
            time: e.at,
            unique_id: `${e.id}:${e.entryId}`,
            metric: { data: { type: 'metric', attributes: { name: name.label } } },
            profile: { data: { type: 'profile', attributes: { email: e.email } } },
          },
        },
      },
    });
  } else if (provider === 'mailchimp') {
    const { apiKey } = credentials as { apiKey: string };
    const { audienceId } = target as { audienceId: string };
    const member = `${mailchimpBase(ctx, apiKey)}${mailchimpMemberPath(audienceId, e.email)}`;
    calls.push({
      url: `${member}/events`,
      method: 'POST',
      headers: mailchimpHeaders(apiKey, true),
      body: { name: name.mailchimp, properties: eventProperties(e), occurred_at: e.at },
    });
    const tag = mailchimpTag(e);
    if (tag)
      calls.push({
        url: `${member}/tags`,
        method: 'POST',
        headers: mailchimpHeaders(apiKey, true),
        body: { tags: [{ name: tag, status: 'active' }] },
      });
  } else {
    const { accessToken } = credentials as { accessToken: string };
    calls.push({
      url: `${hubspotBase(ctx)}/crm/v3/objects/contacts/batch/upsert`,
      method: 'POST',
      headers: hubspotHeaders(accessToken, true),
      body: { inputs: [{ idProperty: 'email', id: e.email, properties: hubspotProperties(e) }] },
    });
  }
  // a member Mailchimp does not have yet: the person's own delivery makes them; try again
  return callInOrder(
    ctx,
    provider,
    calls,
    provider === 'mailchimp'
      ? { result: 'retry', status: 404, message: 'Mailchimp does not have this member yet' }
      : undefined,
  );
}
