/** Response schemas of verifiable draws and provably fair instant win. */
import * as v from 'valibot';
import { nonNegInt, timestamp, uuid } from '../http/schemas.js';

const hex64 = v.pipe(v.string(), v.regex(/^[0-9a-f]{64}$/), v.description('64 lower-case hex characters'));

export const GameFairness = v.strictObject({
  seedId: uuid,
  seedHash: v.pipe(hex64, v.description('SHA-256 of the 32 bytes of the current server seed')),
});

export const PlayFairness = v.strictObject({
  seedId: uuid,
  seedHash: hex64,
  clientSeed: v.string(),
  nonce: v.pipe(nonNegInt, v.minValue(1)),
});

export const SeedRotation = v.strictObject({
  revealed: v.strictObject({ seedId: uuid, seedHash: hex64, seed: hex64 }),
  current: GameFairness,
});

export const Seed = v.strictObject({
  seedId: uuid,
  seedHash: hex64,
  seed: v.pipe(v.nullable(hex64), v.description('null while the seed is current')),
  createdAt: timestamp,
  revealedAt: v.nullable(timestamp),
  plays: nonNegInt,
  tiers: v.array(v.strictObject({ id: uuid, name: v.string(), oddsPercent: v.number() })),
});

export const DrawResult = v.strictObject({
  position: v.pipe(nonNegInt, v.minValue(1)),
  entryId: uuid,
  email: v.nullable(v.string()),
  name: v.nullable(v.string()),
  weight: nonNegInt,
  replaced: v.boolean(),
  replacedReason: v.nullable(v.string()),
});

export const Draw = v.strictObject({
  id: uuid,
  contestId: uuid,
  label: v.nullable(v.string()),
  status: v.picklist(['committed', 'revealed']),
  winners: v.pipe(nonNegInt, v.minValue(1), v.maxValue(100)),
  weighting: v.picklist(['equal', 'points']),
  confirmedOnly: v.boolean(),
  minPoints: nonNegInt,
  excludePreviousWinners: v.boolean(),
  eligibleCount: nonNegInt,
  totalWeight: nonNegInt,
  snapshotHash: hex64,
  seedHash: hex64,
  seed: v.nullable(hex64),
  publicRandomness: v.nullable(v.string()),
  createdAt: timestamp,
  revealedAt: v.nullable(timestamp),
  notifyWinners: v.pipe(
    v.boolean(),
    v.description('each winner is emailed at the reveal (and a replacement when drawn)'),
  ),
  results: v.array(DrawResult),
});
