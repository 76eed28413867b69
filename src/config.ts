/**
 * The parts of the app's configuration that both runtimes read from their settings the same
 * way (src/node.ts and src/worker.ts add what is their own: the public URL, compression).
 */
import type { AppConfig } from './deps.js';
import type { Settings } from './environment.js';

export function configFromSettings(settings: Settings): Omit<AppConfig, 'publicUrl'> {
  return {
    adminToken: settings.ADMIN_TOKEN,
    ipHashSalt: settings.IP_HASH_SALT,
    visitRetentionDays: settings.VISIT_RETENTION_DAYS,
    turnstile: {
      secretKey: settings.TURNSTILE_SECRET_KEY,
      siteKey: settings.TURNSTILE_SITE_KEY,
      verifyUrl: settings.TURNSTILE_VERIFY_URL,
    },
    integrations: {
      key: settings.INTEGRATIONS_KEY,
      previousKey: settings.INTEGRATIONS_KEY_PREVIOUS,
      urls: {
        klaviyo: settings.KLAVIYO_API_URL,
        mailchimp: settings.MAILCHIMP_API_URL,
        hubspot: settings.HUBSPOT_API_URL,
      },
    },
    allowHttpWebhooks: settings.ALLOW_HTTP_WEBHOOKS ?? false,
  };
}
