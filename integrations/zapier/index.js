/**
 * Contest Engine on Zapier (docs/integrations.md, "The Zapier app"). Authentication: the
 * deployment's address and a private key, tested by GET /api/v1/key. Triggers: REST hooks on
 * entries, confirmations, rewards, winners and prizes. Actions: create an entry, add points,
 * complete a bonus action, record a purchase. Search: find an entry by email.
 */

const { version } = require('./package.json');
const { version: platformVersion } = require('zapier-platform-core');
const { addApiKey, base, explainErrors } = require('./lib/api');
const triggers = require('./lib/triggers');
const { creates, searches } = require('./lib/actions');

const authentication = {
  type: 'custom',
  fields: [
    {
      key: 'baseUrl',
      label: 'Address',
      required: true,
      type: 'string',
      helpText: 'Where your Contest Engine runs, for example `https://contests.example.com`.',
    },
    {
      key: 'apiKey',
      label: 'Private API key',
      required: true,
      type: 'password',
      helpText: 'A private key of your team (`sk_…`), from the console: Teams and keys.',
    },
  ],
  test: async (z, bundle) => {
    const response = await z.request({ url: `${base(bundle)}/api/v1/key`, skipThrowForStatus: true });
    // (Zapier may call this with the network blocked, to see where the key goes: an empty answer)
    const key = response.data?.data ?? {};
    if (key.type === 'public')
      throw new z.errors.Error('That is a public key: Zapier needs a private key (sk_…)', 'AuthenticationError', 403);
    return key;
  },
  connectionLabel: '{{teamName}}',
};

module.exports = {
  version,
  platformVersion,
  authentication,
  beforeRequest: [addApiKey],
  afterResponse: [explainErrors],
  triggers,
  creates,
  searches,
};
