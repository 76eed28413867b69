/** The other tools a team connects (docs/integrations.md): the table's check and the schemas are made from this list. */
export const PROVIDERS = ['klaviyo', 'mailchimp', 'hubspot'] as const;
export type Provider = (typeof PROVIDERS)[number];
