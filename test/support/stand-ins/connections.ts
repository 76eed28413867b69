/**
 * The credentials and targets the providers' stand-ins know (seededStandIns), as a connection's
 * body gives them: a module of its own, free of Node's modules, so that the Worker's tests (in
 * workerd) use the same ones.
 */
export const STAND_IN_CONNECTIONS = {
  klaviyo: {
    provider: 'klaviyo',
    credentials: { apiKey: 'pk_0123456789abcdefghijKLMN' },
    target: { listId: 'XyZ123' },
  },
  mailchimp: {
    provider: 'mailchimp',
    credentials: { apiKey: `${'0123456789abcdef'.repeat(2)}-us21` },
    target: { audienceId: 'a1b2c3d4e5' },
  },
  hubspot: { provider: 'hubspot', credentials: { accessToken: 'pat-na1-11111111-2222-3333-4444-555555555555' } },
} as const;
