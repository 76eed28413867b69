/**
 * Calls to a Contest Engine deployment: its address and private key are the connection's
 * (bundle.authData.baseUrl, bundle.authData.apiKey). Every answer is the API's envelope
 * ({success, data} or {success: false, error}); a refusal becomes a Zapier error with the API's
 * own sentence.
 */

/** The deployment's address without a trailing slash. */
const base = (bundle) => String(bundle.authData.baseUrl || '').replace(/\/+$/, '');

/** Adds the private key to every request (beforeRequest). */
const addApiKey = (request, _z, bundle) => {
  if (bundle.authData?.apiKey) request.headers = { ...request.headers, 'x-api-key': bundle.authData.apiKey };
  return request;
};

/** A refusal in the API's words: 401 is the connection's, anything else the step's (afterResponse). */
const explainErrors = (response, z) => {
  if (response.status < 400) return response;
  let said;
  try {
    said = JSON.parse(response.content).error;
  } catch {
    said = undefined;
  }
  const message = typeof said === 'string' && said ? said : `Contest Engine answered ${response.status}`;
  if (response.status === 401) throw new z.errors.Error(message, 'AuthenticationError', 401);
  throw new z.errors.Error(message, 'ApiError', response.status);
};

/** One call: the envelope's `data` (and `pagination` when it has one). */
async function call(z, bundle, method, path, { params, body } = {}) {
  const response = await z.request({
    method,
    url: `${base(bundle)}${path}`,
    params,
    body,
    skipThrowForStatus: true,
  });
  return response.data;
}

module.exports = { base, addApiKey, explainErrors, call };
