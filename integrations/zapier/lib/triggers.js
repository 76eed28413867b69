/**
 * Triggers: REST hooks (POST /api/v1/hooks {url, event} when a Zap is turned on, DELETE
 * /api/v1/hooks/{id} when it is turned off), each event posted by the deployment as it happens,
 * signed like every event. Samples come from the API (the newest of what the trigger would have
 * sent). Hidden triggers feed the dropdowns: contests, games, a contest's bonus actions.
 */

const { call } = require('./api');

const contestField = {
  key: 'contestId',
  label: 'Contest',
  dynamic: 'contest.id.title',
  required: false,
  helpText: 'Only this contest; empty: every contest of the team.',
};

/** The event's envelope as one flat item: the event's id (Zapier's de-duplication), type, time and data. */
const flat = (e) => ({ id: e.id, type: e.type, createdAt: e.createdAt, contestId: e.contestId, ...e.data });

/** The contest a sample is read from: the one chosen, else the newest. */
async function sampleContest(z, bundle) {
  if (bundle.inputData.contestId) return bundle.inputData.contestId;
  const contests = (await call(z, bundle, 'GET', '/api/v1/contests')).data;
  return contests[0]?.id ?? null;
}

/** An entry (as the entries list gives it) in the shape its event carries. */
const entryItem = (type, contestId) => (e) => ({
  id: `sample-${e.id}`,
  type,
  createdAt: e.createdAt,
  contestId,
  entryId: e.id,
  email: e.email,
  name: e.name,
  phone: e.phone ?? null,
  points: e.points,
  emailConfirmed: e.emailConfirmed,
  disqualified: e.disqualified,
  referralCode: e.referralCode,
});

async function entriesSample(z, bundle, type, query) {
  const contestId = await sampleContest(z, bundle);
  if (!contestId) return [];
  const page = await call(z, bundle, 'GET', `/api/v1/contests/${encodeURIComponent(contestId)}/entries`, {
    params: { limit: 3, ...query },
  });
  return page.data.map(entryItem(type, contestId));
}

async function unlocksSample(z, bundle) {
  const contestId = await sampleContest(z, bundle);
  if (!contestId) return [];
  const path = `/api/v1/contests/${encodeURIComponent(contestId)}/rewards`;
  const rewards = (await call(z, bundle, 'GET', path)).data;
  const out = [];
  for (const r of rewards.slice(0, 3)) {
    const unlocks = (await call(z, bundle, 'GET', `${path}/${encodeURIComponent(r.id)}/unlocks`)).data;
    for (const u of unlocks.slice(0, 3))
      out.push({
        id: `sample-${u.unlockId ?? u.id}`,
        type: 'reward.unlocked',
        contestId,
        rewardId: r.id,
        rewardName: r.name,
        ...u,
      });
  }
  return out;
}

/** Each winner of a draw is one item: a Zap runs once per winner. */
const winners = (draw, eventId) =>
  (draw.results ?? [])
    .filter((w) => !w.replaced)
    .map((w) => ({
      id: `${eventId ?? `sample-${draw.drawId ?? draw.id}`}:${w.entryId}`,
      type: 'draw.revealed',
      drawId: draw.drawId ?? draw.id,
      contestId: draw.contestId,
      label: draw.label,
      revealedAt: draw.revealedAt,
      position: w.position,
      entryId: w.entryId,
      email: w.email,
      name: w.name,
    }));

async function winnersSample(z, bundle) {
  const contestId = await sampleContest(z, bundle);
  if (!contestId) return [];
  const draws = (await call(z, bundle, 'GET', `/api/v1/contests/${encodeURIComponent(contestId)}/draws`)).data;
  return draws
    .filter((d) => d.status === 'revealed')
    .slice(0, 2)
    .flatMap((d) => winners(d));
}

async function claimsSample(z, bundle) {
  let gameId = bundle.inputData.gameId;
  if (!gameId) gameId = (await call(z, bundle, 'GET', '/api/v1/instant-win-games')).data[0]?.id;
  if (!gameId) return [];
  const plays = (await call(z, bundle, 'GET', `/api/v1/instant-win-games/${encodeURIComponent(gameId)}/plays`)).data;
  return plays
    .filter((p) => p.status === 'claimed')
    .slice(0, 3)
    .map((p) => ({
      id: `sample-${p.id}`,
      type: 'instant_win.claimed',
      gameId,
      playId: p.id,
      entryId: p.entryId ?? null,
      tierId: p.tierId ?? null,
      email: p.email ?? null,
      prizeName: p.prizeName ?? p.tierName ?? null,
      claimedAt: p.claimedAt ?? null,
    }));
}

/** A REST-hook trigger on one event type. */
function hookTrigger({ key, noun, label, description, event, inputFields, split, list, sample }) {
  return {
    key,
    noun,
    display: { label, description },
    operation: {
      type: 'hook',
      inputFields,
      performSubscribe: async (z, bundle) =>
        (await call(z, bundle, 'POST', '/api/v1/hooks', { body: { url: bundle.targetUrl, event } })).data,
      performUnsubscribe: async (z, bundle) =>
        (await call(z, bundle, 'DELETE', `/api/v1/hooks/${encodeURIComponent(bundle.subscribeData.id)}`)).data,
      perform: async (_z, bundle) => {
        const e = bundle.cleanedRequest;
        if (!e || e.type !== event) return [];
        const only = bundle.inputData.contestId || bundle.inputData.gameId;
        if (only && (e.data?.contestId ?? e.contestId ?? e.data?.gameId) !== only) return [];
        return split ? split(e) : [flat(e)];
      },
      performList: list,
      sample,
    },
  };
}

const entrySample = {
  id: 'sample-entry',
  type: 'entry.created',
  createdAt: '2026-11-29T10:00:00.000Z',
  contestId: '00000000-0000-4000-8000-000000000001',
  entryId: '00000000-0000-4000-8000-000000000002',
  email: 'ann@example.com',
  name: 'Ann',
  phone: null,
  points: 0,
  emailConfirmed: false,
  referralCode: 'ANN123',
};

const triggers = [
  hookTrigger({
    key: 'new_entry',
    noun: 'Entry',
    label: 'New Entry',
    description: 'Triggers when someone joins a contest (before confirming their email, when the contest asks).',
    event: 'entry.created',
    inputFields: [contestField],
    list: (z, bundle) => entriesSample(z, bundle, 'entry.created'),
    sample: entrySample,
  }),
  hookTrigger({
    key: 'entry_confirmed',
    noun: 'Entry',
    label: 'Entry Confirmed',
    description: 'Triggers when a person confirms their email.',
    event: 'entry.confirmed',
    inputFields: [contestField],
    list: (z, bundle) => entriesSample(z, bundle, 'entry.confirmed', { confirmed: 'true' }),
    sample: { ...entrySample, type: 'entry.confirmed', emailConfirmed: true },
  }),
  hookTrigger({
    key: 'reward_unlocked',
    noun: 'Reward',
    label: 'Reward Unlocked',
    description: "Triggers when a person reaches a reward's threshold (with its code, when it gives one).",
    event: 'reward.unlocked',
    inputFields: [contestField],
    list: unlocksSample,
    sample: {
      id: 'sample-unlock',
      type: 'reward.unlocked',
      unlockId: '00000000-0000-4000-8000-000000000003',
      rewardId: '00000000-0000-4000-8000-000000000004',
      rewardName: 'Sticker pack',
      entryId: '00000000-0000-4000-8000-000000000002',
      contestId: '00000000-0000-4000-8000-000000000001',
      code: 'STICKER10',
      codePending: false,
      unlockedAt: '2026-11-29T10:00:00.000Z',
    },
  }),
  hookTrigger({
    key: 'winner_drawn',
    noun: 'Winner',
    label: 'Winner Drawn',
    description: "Triggers for each winner when a giveaway's draw is revealed.",
    event: 'draw.revealed',
    inputFields: [contestField],
    split: (e) => winners({ ...e.data, contestId: e.contestId ?? e.data.contestId }, e.id),
    list: winnersSample,
    sample: {
      id: 'sample-draw:00000000-0000-4000-8000-000000000002',
      type: 'draw.revealed',
      drawId: '00000000-0000-4000-8000-000000000005',
      contestId: '00000000-0000-4000-8000-000000000001',
      label: 'A surfboard',
      revealedAt: '2026-11-29T10:00:00.000Z',
      position: 1,
      entryId: '00000000-0000-4000-8000-000000000002',
      email: 'ann@example.com',
      name: 'Ann',
    },
  }),
  hookTrigger({
    key: 'prize_claimed',
    noun: 'Prize',
    label: 'Prize Claimed',
    description: 'Triggers when an instant-win prize is claimed.',
    event: 'instant_win.claimed',
    inputFields: [
      {
        key: 'gameId',
        label: 'Game',
        dynamic: 'game.id.title',
        required: false,
        helpText: 'Only this game; empty: every game of the team.',
      },
    ],
    list: claimsSample,
    sample: {
      id: 'sample-claim',
      type: 'instant_win.claimed',
      gameId: '00000000-0000-4000-8000-000000000006',
      playId: '00000000-0000-4000-8000-000000000007',
      entryId: '00000000-0000-4000-8000-000000000002',
      tierId: '00000000-0000-4000-8000-000000000008',
      email: 'ann@example.com',
      prizeName: '10% off',
      claimedAt: '2026-11-29T10:00:00.000Z',
    },
  }),
];

/** A hidden trigger listing what a dropdown offers. */
const hidden = (key, noun, perform, sample) => ({
  key,
  noun,
  display: { label: `List ${noun}s`, description: `The team's ${noun.toLowerCase()}s, for dropdowns.`, hidden: true },
  operation: { perform, sample },
});

const lists = [
  hidden(
    'contest',
    'Contest',
    async (z, bundle) =>
      (await call(z, bundle, 'GET', '/api/v1/contests')).data.map((c) => ({ id: c.id, title: c.title })),
    { id: '00000000-0000-4000-8000-000000000001', title: 'Summer waitlist' },
  ),
  hidden(
    'game',
    'Game',
    async (z, bundle) =>
      (await call(z, bundle, 'GET', '/api/v1/instant-win-games')).data.map((g) => ({ id: g.id, title: g.title })),
    { id: '00000000-0000-4000-8000-000000000006', title: 'Spin to win' },
  ),
  hidden(
    'bonus_action',
    'Bonus Action',
    async (z, bundle) => {
      if (!bundle.inputData.contestId) return [];
      const path = `/api/v1/contests/${encodeURIComponent(bundle.inputData.contestId)}/bonus-actions`;
      return (await call(z, bundle, 'GET', path)).data.map((a) => ({ id: a.id, name: a.action ?? a.name }));
    },
    { id: '00000000-0000-4000-8000-000000000009', name: 'Follow us' },
  ),
];

module.exports = Object.fromEntries([...triggers, ...lists].map((t) => [t.key, t]));
