/** What GET /health answers. */
import * as v from 'valibot';

export const HealthOk = v.strictObject({ status: v.literal('ok') });
export const HealthUnavailable = v.strictObject({ status: v.literal('unavailable') });
