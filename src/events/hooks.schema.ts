/** REST hooks: the body of POST /api/v1/hooks and the hook it answers. */
import * as v from 'valibot';
import { timestamp, uuid } from '../http/schemas.js';
import { EVENT_TYPES } from '../sql/events.js';

/** What a hook can subscribe to: every event type but the endpoints' own test. */
export const HOOK_EVENTS = EVENT_TYPES.filter((t) => t !== 'webhook.test');

export const CreateHook = v.object({
  url: v.pipe(v.string('Invalid url'), v.description('https:// URL the events are posted to')),
  event: v.pipe(
    v.picklist(HOOK_EVENTS, 'Unknown event type'),
    v.description('the event type, as in the events docs (`entry.confirmed`, `reward.unlocked`, …)'),
  ),
});

export const Hook = v.strictObject({
  id: uuid,
  url: v.string(),
  event: v.picklist(HOOK_EVENTS),
  secret: v.pipe(v.string(), v.description('the signing secret (Standard Webhooks), shown only here')),
  createdAt: timestamp,
});
