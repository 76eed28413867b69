/**
 * What each tool receives about a person (docs/integrations.md): the properties a team's emails
 * can use, and HubSpot's properties of the events. The connection test makes them at the
 * provider (Mailchimp's merge fields, HubSpot's properties); the deliverer fills them.
 */

/** HubSpot's property group, and the prefix of its property names */
export const HUBSPOT_GROUP = 'contest_engine';
/** What each person carries to the tool: the properties a team's emails can use. */
export const PERSON_PROPERTIES = [
  { key: 'contest', label: 'Contest', type: 'text', mailchimpTag: 'CE_CONTEST' },
  { key: 'referral_link', label: 'Referral link', type: 'url', mailchimpTag: 'CE_REFLINK' },
  { key: 'referral_code', label: 'Referral code', type: 'text', mailchimpTag: 'CE_REFCODE' },
  { key: 'page_link', label: 'Contest page', type: 'url', mailchimpTag: 'CE_PAGE' },
  { key: 'position', label: 'Position', type: 'number', mailchimpTag: 'CE_POS' },
  { key: 'points', label: 'Points', type: 'number', mailchimpTag: 'CE_POINTS' },
  { key: 'confirmed_referrals', label: 'Confirmed referrals', type: 'number', mailchimpTag: 'CE_FRIENDS' },
] as const;

/**
 * HubSpot's contact properties of the events (src/integrations/tool-events.ts): HubSpot has no
 * custom events on every plan, so what happened last is kept on the contact.
 */
export const HUBSPOT_EVENT_PROPERTIES = [
  { key: 'last_event', label: 'Last contest event', type: 'text' },
  { key: 'last_event_at', label: 'Last contest event at', type: 'datetime' },
  { key: 'last_reward', label: 'Last reward unlocked', type: 'text' },
  { key: 'last_reward_code', label: 'Last reward code', type: 'text' },
  { key: 'won_draw', label: 'Draw won', type: 'text' },
  { key: 'last_prize', label: 'Last prize claimed', type: 'text' },
] as const;

/** HubSpot's property type and field type for ours. */
export const HUBSPOT_TYPES = {
  text: { type: 'string', fieldType: 'text' },
  url: { type: 'string', fieldType: 'text' },
  number: { type: 'number', fieldType: 'number' },
  datetime: { type: 'datetime', fieldType: 'date' },
} as const;
