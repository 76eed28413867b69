import * as v from 'valibot';
import { nonNegInt, uuid } from '../http/schemas.js';

export const Purchase = v.strictObject({
  purchaseId: uuid,
  entryId: v.pipe(
    v.nullable(uuid),
    v.description('null only for an order first recorded by a referral webhook for a buyer with no entry'),
  ),
  pointsAwarded: nonNegInt,
  alreadyExists: v.boolean(),
  message: v.string(),
});

// ---------------------------------------------------------------- analytics
