/** Rewards at milestones: the contest's rewards, their codes, who unlocked them, an entry's rewards. */
import { Hono } from 'hono';
import { describeRoute } from 'hono-openapi';
import * as v from 'valibot';
import { Errors } from '../errors.js';
import { requireKey } from '../http/auth.js';
import { largeBody } from '../http/body-limit.js';
import type { AppEnv } from '../http/context.js';
import { ok, pagination } from '../http/envelope.js';
import { apiErrors, Deleted, jsonRequest, okJson, pageJson, pageQuery, security } from '../http/schemas.js';
import { jsonBody, pageParams, pageQueryParams, queryParams, requireContestId } from '../http/validate.js';
import {
  addCodes,
  createReward,
  deleteReward,
  entryRewards,
  listRewards,
  listUnlocks,
  updateReward,
} from './rewards.js';
import {
  AddCodesBody,
  AddedCodes,
  CreatedReward,
  CreateRewardBody,
  EntryRewards,
  PublicReward,
  Reward,
  RewardUnlock,
  UpdateRewardBody,
} from './rewards.schema.js';

const tags = ['Rewards'];
const REWARD_404 = ['Contest not found', 'Reward not found'];
const BODY_400 =
  'a message naming the field (`Give either referralsRequired or pointsRequired`, `codes must have at most 10000 codes per request`...)';

export function rewardRoutes() {
  const r = new Hono<AppEnv>();
  const privateKey = requireKey('private');
  const ids = (c: { req: { param: (k: string) => string | undefined } }) => ({
    contestId: requireContestId(c.req.param('contestId')),
    rewardId: c.req.param('rewardId') ?? '',
  });

  r.post(
    '/api/v1/contests/:contestId/rewards',
    describeRoute({
      operationId: 'createReward',
      tags,
      summary: 'Create a reward: a threshold (confirmed referrals or points) and what it gives',
      description:
        'Gives a pool of codes (`codes`, each given once), one `code` for everyone, or nothing (a status such as early access). ' +
        'Entries already past the threshold unlock it in the same statement.',
      security: security.privateKey,
      requestBody: jsonRequest(CreateRewardBody),
      responses: {
        201: okJson('The reward (codes repeated in the request are counted in `duplicates`)', CreatedReward),
        ...apiErrors({ access: 'private', body: true }, { 400: BODY_400, 404: ['Contest not found'] }),
      },
    }),
    largeBody(),
    privateKey,
    jsonBody(CreateRewardBody),
    async (c) => {
      const contestId = requireContestId(c.req.param('contestId'));
      const reward = await createReward(
        c.var.db(),
        c.var.auth.team,
        contestId,
        c.req.valid('json'),
        c.var.deps.clock.now(),
      );
      return ok(c, reward, 201);
    },
  );

  r.get(
    '/api/v1/contests/:contestId/rewards',
    describeRoute({
      operationId: 'listRewards',
      tags,
      summary: "The contest's rewards, smallest threshold first",
      description:
        'A private key sees everything (codes left, unlocks); a public key (a page) sees names, descriptions and thresholds, never a code. ' +
        'Without a key: a contest with `publicSignup: true` (the reward ladder of the sign-up widget), as a public key sees them.',
      security: security.keyless,
      responses: {
        200: okJson('The rewards', v.union([v.array(Reward), v.array(PublicReward)])),
        ...apiErrors({ access: 'public', unauthorized: 'Invalid API key' }, { 404: ['Contest not found'] }),
      },
    }),
    requireKey('public', { unauthorized: Errors.invalidKey, keyless: 'contest' }),
    async (c) => {
      const contestId = requireContestId(c.req.param('contestId'));
      return ok(c, await listRewards(c.var.db(), c.var.auth.team, contestId, c.var.auth.type));
    },
  );

  r.patch(
    '/api/v1/contests/:contestId/rewards/:rewardId',
    describeRoute({
      operationId: 'updateReward',
      tags,
      summary: "Change a reward's name, description, threshold or (one code for everyone) its code",
      description:
        'A lower threshold unlocks the reward at once for the entries already past it. What was unlocked stays unlocked.',
      security: security.privateKey,
      requestBody: jsonRequest(UpdateRewardBody),
      responses: {
        200: okJson('The reward', Reward),
        ...apiErrors(
          { access: 'private', body: true },
          { 400: BODY_400, 404: REWARD_404, 409: ['This reward does not give one code to everyone'] },
        ),
      },
    }),
    privateKey,
    jsonBody(UpdateRewardBody),
    async (c) => {
      const { contestId, rewardId } = ids(c);
      const patch = c.req.valid('json');
      return ok(c, await updateReward(c.var.db(), c.var.auth.team, contestId, rewardId, patch, c.var.deps.clock.now()));
    },
  );

  r.delete(
    '/api/v1/contests/:contestId/rewards/:rewardId',
    describeRoute({
      operationId: 'deleteReward',
      tags,
      summary: 'Delete a reward: nobody unlocks it any more; what was unlocked and the codes given stay',
      security: security.privateKey,
      responses: {
        200: okJson('Deleted', Deleted),
        ...apiErrors({ access: 'private' }, { 404: REWARD_404 }),
      },
    }),
    privateKey,
    async (c) => {
      const { contestId, rewardId } = ids(c);
      return ok(c, await deleteReward(c.var.db(), c.var.auth.team, contestId, rewardId, c.var.deps.clock.now()));
    },
  );

  r.post(
    '/api/v1/contests/:contestId/rewards/:rewardId/codes',
    describeRoute({
      operationId: 'addRewardCodes',
      tags,
      summary: "Add codes to a reward's pool (unlocks waiting for a code get them first, oldest first)",
      security: security.privateKey,
      requestBody: jsonRequest(AddCodesBody),
      responses: {
        200: okJson('What was added', AddedCodes),
        ...apiErrors(
          { access: 'private', body: true },
          {
            400: BODY_400,
            404: REWARD_404,
            409: ['This reward does not give codes from a pool', 'A pool holds at most 100000 codes'],
          },
        ),
      },
    }),
    largeBody(),
    privateKey,
    jsonBody(AddCodesBody),
    async (c) => {
      const { contestId, rewardId } = ids(c);
      const { codes } = c.req.valid('json');
      return ok(c, await addCodes(c.var.db(), c.var.auth.team, contestId, rewardId, codes, c.var.deps.clock.now()));
    },
  );

  r.get(
    '/api/v1/contests/:contestId/rewards/:rewardId/unlocks',
    describeRoute({
      operationId: 'listRewardUnlocks',
      tags,
      summary: 'Who unlocked a reward, newest first, with the code each got',
      security: security.privateKey,
      parameters: pageQuery(),
      responses: {
        200: pageJson('A page of unlocks', RewardUnlock),
        ...apiErrors({ access: 'private' }, { 400: true, 404: REWARD_404 }),
      },
    }),
    privateKey,
    queryParams(pageQueryParams),
    async (c) => {
      const { contestId, rewardId } = ids(c);
      const { page, limit, offset } = pageParams(c.req.valid('query'));
      const { items, total } = await listUnlocks(c.var.db(), c.var.auth.team, contestId, rewardId, { limit, offset });
      return ok(c, items, 200, { pagination: pagination(page, limit, total) });
    },
  );

  r.get(
    '/api/v1/entries/:entryId/rewards',
    describeRoute({
      operationId: 'listEntryRewards',
      tags,
      summary: 'What an entry unlocked (with its codes) and the reward it is closest to',
      security: security.privateKey,
      responses: {
        200: okJson("The entry's rewards", EntryRewards),
        ...apiErrors({ access: 'private' }, { 404: ['Entry not found'] }),
      },
    }),
    privateKey,
    async (c) => ok(c, await entryRewards(c.var.db(), c.var.auth.team, c.req.param('entryId'))),
  );

  return r;
}
