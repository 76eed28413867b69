/**
 * First run: on an empty database, a demo team with a public and a private key, a leaderboard
 * contest and three bonus actions, so `npm start` answers real requests at once.
 */
import { sql } from 'drizzle-orm';
import { createContest } from '../contests/contest-settings.js';
import { type Db, queryOne } from '../db/client.js';
import type { RandomSource } from '../deps.js';
import { createApiKey, createBonusAction, createTeam } from './admin.js';

export interface SeedResult {
  teamId: string;
  contestId: string;
  publicKey: string;
  privateKey: string;
}

export async function seedIfEmpty(db: Db, random: RandomSource, now: Date): Promise<SeedResult | null> {
  const row = await queryOne<{ n: number }>(db, sql`select count(*)::int as n from teams`);
  if ((row?.n ?? 0) > 0) return null;
  const team = await createTeam(db, 'Demo team');
  // masked: a public key goes into pages, where anyone can read it (docs/fraud-and-privacy.md)
  const pub = await createApiKey(db, random, team.id, 'public', 'Demo public key', 'masked');
  const priv = await createApiKey(db, random, team.id, 'private', 'Demo private key');
  const contest = await createContest(
    db,
    random,
    team.id,
    {
      title: 'Demo leaderboard',
      description: 'Refer friends and complete bonus actions to climb the leaderboard.',
      mode: 'leaderboard',
      status: 'active',
      isEvergreen: true,
      campaignType: 'viral',
      requireEmailConfirmation: false,
      referral: { advocatePoints: 10, friendPoints: 5 },
      purchaseTracking: { enabled: true, pointsPerPurchase: 5, pointsPerCurrencyUnit: 1 },
      externalTracking: { enabled: true },
    },
    now,
  );
  await createBonusAction(db, contest.id, {
    action: 'follow_instagram',
    description: 'Follow us on Instagram',
    icon: 'instagram',
    iconColor: '#E1306C',
    points: 5,
    confirmationType: 'click',
    destinationUrl: 'https://instagram.com/',
  });
  await createBonusAction(db, contest.id, {
    action: 'share_twitter',
    description: 'Share on X',
    icon: 'twitter',
    iconColor: '#000000',
    points: 3,
    confirmationType: 'auto',
  });
  await createBonusAction(db, contest.id, {
    action: 'newsletter',
    description: 'Join the newsletter',
    icon: 'mail',
    iconColor: '#2563EB',
    points: 2,
    confirmationType: 'auto',
  });
  return { teamId: team.id, contestId: contest.id, publicKey: pub.key, privateKey: priv.key };
}
