/**
 * Actions (creates) and the search, each one call to the API: create an entry, add points,
 * complete a bonus action, record a purchase; find an entry by email.
 */

const { call } = require('./api');

const contest = { key: 'contestId', label: 'Contest', dynamic: 'contest.id.title', required: true };
const entryField = {
  key: 'entryId',
  label: 'Entry',
  required: true,
  search: 'find_entry.id',
  helpText: 'The entry id (use "Find Entry" to get it from an email).',
};
const path = (...parts) => parts.map(encodeURIComponent).join('/');

const creates = [
  {
    key: 'create_entry',
    noun: 'Entry',
    display: { label: 'Create Entry', description: 'Adds a person to a contest (or finds them if they are in it).' },
    operation: {
      inputFields: [
        contest,
        { key: 'email', label: 'Email', required: true },
        { key: 'name', label: 'Name', required: false },
        { key: 'phone', label: 'Phone', required: false },
        { key: 'referralCode', label: 'Referral code', required: false, helpText: 'Of who referred them.' },
      ],
      perform: async (z, bundle) => {
        const { contestId, email, name, phone, referralCode } = bundle.inputData;
        const body = { email };
        if (name) body.name = name;
        if (phone) body.phone = phone;
        if (referralCode) body.referralCode = referralCode;
        const made = (await call(z, bundle, 'POST', `/api/v1/contests/${path(contestId)}/entries`, { body })).data;
        return { id: made.entryId, ...made };
      },
      sample: {
        id: '00000000-0000-4000-8000-000000000002',
        entryId: '00000000-0000-4000-8000-000000000002',
        email: 'ann@example.com',
        alreadyExists: false,
        isReferred: false,
        pointsAwarded: { advocate: 0, friend: 0 },
      },
    },
  },
  {
    key: 'add_points',
    noun: 'Points',
    display: {
      label: 'Add Points',
      description: "Adds (or, negative, removes) points to an entry's total, with a reason.",
    },
    operation: {
      inputFields: [
        entryField,
        { key: 'points', label: 'Points', type: 'integer', required: true, helpText: 'Negative removes.' },
        { key: 'reason', label: 'Reason', required: true },
      ],
      perform: async (z, bundle) => {
        const { entryId, points, reason } = bundle.inputData;
        const r = (
          await call(z, bundle, 'POST', `/api/v1/entries/${path(entryId)}/points`, {
            body: { points: Number(points), reason },
          })
        ).data;
        return { id: entryId, entryId, ...r };
      },
      sample: {
        id: '00000000-0000-4000-8000-000000000002',
        entryId: '00000000-0000-4000-8000-000000000002',
        message: 'Points adjusted',
        previousTotal: 10,
        newTotal: 15,
        adjustment: 5,
      },
    },
  },
  {
    key: 'complete_bonus_action',
    noun: 'Bonus Action',
    display: {
      label: 'Complete Bonus Action',
      description: 'Marks a bonus action done for an entry (its points follow).',
    },
    operation: {
      inputFields: [
        { ...contest, altersDynamicFields: true },
        entryField,
        { key: 'bonusActionId', label: 'Bonus action', dynamic: 'bonus_action.id.name', required: true },
        { key: 'proof', label: 'Proof', required: false, helpText: 'A link to a screenshot, for example.' },
        { key: 'answer', label: 'Answer', required: false, helpText: 'For a quiz.' },
      ],
      perform: async (z, bundle) => {
        const { entryId, bonusActionId, proof, answer } = bundle.inputData;
        const body = {};
        if (proof) body.proof = proof;
        if (answer) body.answer = answer;
        const r = (
          await call(
            z,
            bundle,
            'POST',
            `/api/v1/entries/${path(entryId)}/bonus-actions/${path(bonusActionId)}/complete`,
            {
              body,
            },
          )
        ).data;
        return { id: `${entryId}:${bonusActionId}`, entryId, bonusActionId, ...r };
      },
      sample: {
        id: '00000000-0000-4000-8000-000000000002:00000000-0000-4000-8000-000000000009',
        alreadyCompleted: false,
        completedAt: '2026-11-29T10:00:00.000Z',
        pointsAdded: 5,
        newTotalPoints: 15,
        message: 'Bonus action completed',
      },
    },
  },
  {
    key: 'record_purchase',
    noun: 'Purchase',
    display: {
      label: 'Record Purchase',
      description: "Records an entry's order once (by its order id); points follow the contest's settings.",
    },
    operation: {
      inputFields: [
        contest,
        { key: 'email', label: 'Email', required: true, helpText: 'Of an entry of the contest.' },
        { key: 'orderId', label: 'Order ID', required: true },
        { key: 'amount', label: 'Amount', type: 'number', required: true },
        { key: 'currency', label: 'Currency', required: false, default: 'USD' },
      ],
      perform: async (z, bundle) => {
        const { contestId, email, orderId, amount, currency } = bundle.inputData;
        const body = { email, orderId, amount: Number(amount) };
        if (currency) body.currency = currency;
        const r = (await call(z, bundle, 'POST', `/api/v1/contests/${path(contestId)}/purchases`, { body })).data;
        return { id: orderId, ...r };
      },
      sample: {
        id: 'order-1001',
        orderId: 'order-1001',
        amount: 42,
        currency: 'USD',
        pointsAwarded: 42,
        alreadyExists: false,
      },
    },
  },
];

const searches = [
  {
    key: 'find_entry',
    noun: 'Entry',
    display: { label: 'Find Entry', description: 'Finds an entry of a contest by its email.' },
    operation: {
      inputFields: [contest, { key: 'email', label: 'Email', required: true }],
      perform: async (z, bundle) => {
        const { contestId, email } = bundle.inputData;
        const page = await call(z, bundle, 'GET', `/api/v1/contests/${path(contestId)}/entries`, {
          params: { search: email, limit: 100 },
        });
        const want = String(email).trim().toLowerCase();
        return page.data.filter((e) => String(e.email ?? '').toLowerCase() === want);
      },
      sample: {
        id: '00000000-0000-4000-8000-000000000002',
        contestId: '00000000-0000-4000-8000-000000000001',
        email: 'ann@example.com',
        name: 'Ann',
        points: 10,
        emailConfirmed: true,
        referralCode: 'ANN123',
      },
    },
  },
];

module.exports = {
  creates: Object.fromEntries(creates.map((c) => [c.key, c])),
  searches: Object.fromEntries(searches.map((s) => [s.key, s])),
};
