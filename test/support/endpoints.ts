/** Every /api/v1 endpoint of the reference with its access level and the documented auth wording (docs/api.md). */
const ID = '00000000-0000-4000-8000-000000000000';
const MISSING = 'Missing or invalid API key';
const INVALID = 'Invalid API key';
const PRIVATE = 'This endpoint requires a private API key';
const PRIVATE_SHORT = 'Private key required';

export type Row = [method: string, path: string, access: 'pub' | 'priv', unauthorized: string, forbidden?: string];
export const ENDPOINTS: Row[] = [
  ['GET', '/api/v1/key', 'pub', MISSING],
  ['GET', '/api/v1/contests', 'pub', INVALID],
  ['GET', `/api/v1/contests/${ID}`, 'pub', INVALID],
  ['POST', '/api/v1/contests', 'priv', MISSING, PRIVATE],
  ['GET', `/api/v1/contests/${ID}/settings`, 'priv', MISSING, PRIVATE],
  ['PATCH', `/api/v1/contests/${ID}`, 'priv', MISSING, PRIVATE],
  ['POST', `/api/v1/contests/${ID}/views`, 'pub', MISSING],
  ['GET', `/api/v1/contests/${ID}/entries`, 'pub', MISSING],
  ['GET', `/api/v1/entries/${ID}`, 'pub', MISSING],
  ['POST', `/api/v1/contests/${ID}/entries`, 'priv', MISSING, PRIVATE],
  ['GET', `/api/v1/contests/${ID}/signup`, 'pub', MISSING],
  ['POST', `/api/v1/contests/${ID}/signup`, 'pub', MISSING],
  ['PUT', `/api/v1/entries/${ID}`, 'priv', MISSING, PRIVATE],
  ['POST', `/api/v1/entries/${ID}/disqualify`, 'priv', MISSING, PRIVATE],
  ['POST', `/api/v1/entries/${ID}/points`, 'priv', MISSING, PRIVATE_SHORT],
  ['GET', `/api/v1/entries/${ID}/bonus-actions`, 'pub', INVALID],
  ['POST', `/api/v1/entries/${ID}/bonus-actions/${ID}/complete`, 'pub', INVALID],
  ['POST', `/api/v1/contests/${ID}/purchases`, 'priv', MISSING, PRIVATE_SHORT],
  ['GET', `/api/v1/contests/${ID}/analytics`, 'pub', MISSING],
  ['GET', `/api/v1/contests/${ID}/webhook-receipts`, 'priv', MISSING, PRIVATE],
  ['GET', `/api/v1/contests/${ID}/leaderboard`, 'pub', MISSING],
  ['GET', `/api/v1/contests/${ID}/series`, 'priv', MISSING, PRIVATE],
  ['GET', `/api/v1/instant-win-games/${ID}/series`, 'priv', MISSING, PRIVATE],
  ['GET', `/api/v1/contests/${ID}/bonus-actions`, 'pub', MISSING],
  ['POST', `/api/v1/contests/${ID}/bonus-actions`, 'priv', MISSING, PRIVATE],
  ['PATCH', `/api/v1/bonus-actions/${ID}`, 'priv', MISSING, PRIVATE],
  ['GET', `/api/v1/contests/${ID}/bonus-completions`, 'priv', MISSING, PRIVATE],
  ['GET', '/api/v1/instant-win-games', 'pub', MISSING],
  ['GET', `/api/v1/instant-win-games/${ID}`, 'pub', MISSING],
  ['POST', '/api/v1/instant-win-games', 'priv', MISSING, PRIVATE],
  ['PUT', `/api/v1/instant-win-games/${ID}`, 'priv', MISSING, PRIVATE],
  ['DELETE', `/api/v1/instant-win-games/${ID}`, 'priv', MISSING, PRIVATE],
  ['POST', `/api/v1/instant-win-games/${ID}/play`, 'pub', MISSING],
  ['POST', `/api/v1/instant-win-games/${ID}/plays/${ID}/claim`, 'pub', MISSING],
  ['GET', `/api/v1/instant-win-games/${ID}/plays`, 'priv', MISSING, PRIVATE],
  // provable fairness (docs/fairness.md)
  ['POST', `/api/v1/instant-win-games/${ID}/fairness/rotate`, 'priv', MISSING, PRIVATE],
  ['GET', `/api/v1/instant-win-games/${ID}/fairness/seeds`, 'pub', MISSING],
  ['POST', `/api/v1/contests/${ID}/draws`, 'priv', MISSING, PRIVATE],
  ['GET', `/api/v1/contests/${ID}/draws`, 'priv', MISSING, PRIVATE],
  ['GET', `/api/v1/draws/${ID}`, 'pub', MISSING],
  ['POST', `/api/v1/draws/${ID}/reveal`, 'priv', MISSING, PRIVATE],
  ['POST', `/api/v1/draws/${ID}/results/${ID}/replace`, 'priv', MISSING, PRIVATE],
  ['GET', `/api/v1/draws/${ID}/snapshot`, 'pub', MISSING],
];
