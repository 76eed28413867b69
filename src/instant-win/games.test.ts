import { describe, expect, it } from 'vitest';
import {
  a,
  BASE,
  b,
  env,
  gameBody,
  getGame,
  MISSING_ID,
  miss,
  newGame,
  prize,
  snapshot,
} from '../../test/support/fixtures/instant-win.js';
import { normalizeTiers } from './games.schema.js';

describe('create', () => {
  it('answers 201 with the game as get shows it to a private key, active by default', async () => {
    const r = await env.request('POST', BASE, {
      key: a.privateKey,
      body: gameBody({
        description: 'Win a prize',
        tiers: [
          prize({ quantity: 10, color: '#ff0000' }),
          {
            name: 'Free gift',
            oddsPercent: 20,
            deliveryType: 'unique_code',
            codes: ['GIFT-1', 'GIFT-2'],
            redeemUrl: 'https://shop.test/redeem',
          },
          { name: 'Visit', oddsPercent: 10, redeemUrl: 'https://shop.test/welcome' },
          miss({ oddsPercent: 20, redeemCode: 'IGNORED', quantity: 3 }),
        ],
      }),
    });
    expect(r.status).toBe(201);
    const g = r.body.data;
    expect(g).toMatchObject({
      slug: 'spin-to-win',
      title: 'Spin the wheel',
      description: 'Win a prize',
      status: 'active',
      mechanic: 'wheel',
      layout: 'default',
      entryLimit: 'none',
      publishAs: 'landing',
      embedUrl: null,
      stats: { plays: 0, wins: 0, claims: 0 },
    });
    expect(g.tiers.map((t: Record<string, unknown>) => ({ ...t, id: typeof t.id }))).toEqual([
      {
        id: 'string',
        name: '10% off',
        oddsPercent: 50,
        isMiss: false,
        color: '#ff0000',
        deliveryType: 'code',
        quantity: 10,
        remaining: 10,
        codesTotal: 0,
        codesAvailable: 0,
        redeemCode: 'SAVE10',
        redeemUrl: null,
        codes: [],
      },
      {
        id: 'string',
        name: 'Free gift',
        oddsPercent: 20,
        isMiss: false,
        color: null,
        deliveryType: 'unique_code',
        quantity: null,
        remaining: null,
        codesTotal: 2,
        codesAvailable: 2,
        redeemCode: null,
        redeemUrl: 'https://shop.test/redeem',
        codes: ['GIFT-1', 'GIFT-2'],
      },
      {
        id: 'string',
        name: 'Visit',
        oddsPercent: 10,
        isMiss: false,
        color: null,
        deliveryType: 'url',
        quantity: null,
        remaining: null,
        codesTotal: 0,
        codesAvailable: 0,
        redeemCode: null,
        redeemUrl: 'https://shop.test/welcome',
        codes: [],
      },
      // a miss stores no fulfilment and no quantity
      {
        id: 'string',
        name: 'Try again',
        oddsPercent: 20,
        isMiss: true,
        color: null,
        deliveryType: null,
        quantity: null,
        remaining: null,
        codesTotal: 0,
        codesAvailable: 0,
        redeemCode: null,
        redeemUrl: null,
        codes: [],
      },
    ]);
    expect(await getGame(g.id)).toEqual(g);
    // it is a contest with tool type instant_win whose slug is the preset
    const list = await env.request('GET', '/api/v1/contests?toolType=instant_win', { key: a.publicKey });
    expect(list.body.data.find((c: { id: string }) => c.id === g.id)).toMatchObject({
      slug: 'spin-to-win',
      toolType: 'instant_win',
      title: 'Spin the wheel',
    });
  });

  it('combines any preset with any mechanic; two games may share a preset; takes status, embed and ignores unknown fields', async () => {
    const g1 = await newGame({ slug: 'golden-egg', mechanic: 'slots', layout: 'fullscreen', entryLimit: 'daily' });
    const g2 = await newGame({
      slug: 'golden-egg',
      mechanic: 'claw',
      status: 'draft',
      publishAs: 'embed',
      embedUrl: 'https://brand.test/page',
      teamId: b.teamId,
      id: MISSING_ID,
      stats: { plays: 99 },
    });
    expect(g1).toMatchObject({ slug: 'golden-egg', mechanic: 'slots', layout: 'fullscreen', entryLimit: 'daily' });
    expect(g2).toMatchObject({
      slug: 'golden-egg',
      mechanic: 'claw',
      status: 'draft',
      publishAs: 'embed',
      embedUrl: 'https://brand.test/page',
    });
    expect(g2.id).not.toBe(MISSING_ID);
    expect(g2.stats).toEqual({ plays: 0, wins: 0, claims: 0 });
    expect((await env.request('GET', `${BASE}/${g2.id}`, { key: b.privateKey })).status).toBe(404);
  });

  it('refuses every bad body with a clear 400 and creates nothing', async () => {
    const before = await snapshot();
    const many = Array.from({ length: 1000 }, (_, i) => ({ name: `t${i}`, oddsPercent: 0.1, isMiss: true }));
    const cases: [Record<string, unknown>, string][] = [
      [{ slug: 'nope' }, 'Unknown slug'],
      [{ slug: 'coupon-roulette' }, 'Unknown slug'],
      [{ slug: 'in-store-kiosk' }, 'Unknown slug'],
      [{ slug: undefined }, 'slug is required'],
      [{ title: undefined }, 'title is required'],
      [{ title: '   ' }, 'title must not be empty'],
      [{ mechanic: 'spinner' }, 'mechanic must be one of wheel, scratch, box, advent, plinko, slots, egg, claw'],
      [{ layout: 'tiny' }, 'layout must be one of default, fullscreen'],
      [{ entryLimit: 'weekly' }, 'entryLimit must be one of none, daily, device'],
      [{ publishAs: 'popup' }, 'publishAs must be one of landing, embed'],
      [{ status: 'live' }, 'status must be one of draft, active, paused, ended'],
      [{ publishAs: 'embed' }, 'embedUrl is required when publishAs is embed'],
      [{ publishAs: 'embed', embedUrl: 'javascript:alert(1)' }, 'embedUrl must be an http(s) URL'],
      [{ tiers: undefined }, 'tiers is required'],
      [{ tiers: 'two' }, 'Invalid tiers'],
      [{ tiers: [] }, 'At least two tiers are required'],
      [{ tiers: [prize({ oddsPercent: 100 })] }, 'At least two tiers are required'],
      [{ tiers: many }, 'At most 50 tiers are allowed'],
      [{ tiers: [prize({ oddsPercent: 50 }), miss({ oddsPercent: 49.9999 })] }, 'Tier odds must sum to 100'],
      [{ tiers: [prize({ oddsPercent: 50 }), miss({ oddsPercent: 50.0001 })] }, 'Tier odds must sum to 100'],
      [{ tiers: [prize({ oddsPercent: '50' }), miss()] }, 'Invalid tiers.0.oddsPercent'],
      [{ tiers: [prize({ oddsPercent: 'NaN' }), miss()] }, 'Invalid tiers.0.oddsPercent'],
      [{ tiers: [prize({ oddsPercent: undefined }), miss()] }, 'tiers.0.oddsPercent is required'],
      [
        { tiers: [prize({ oddsPercent: -10 }), miss({ oddsPercent: 110 })] },
        'tiers[0].oddsPercent must be a number between 0 and 100',
      ],
      [
        { tiers: [prize({ oddsPercent: 150 }), miss({ oddsPercent: -50 })] },
        'tiers[0].oddsPercent must be a number between 0 and 100',
      ],
      [{ tiers: [prize({ name: ' ' }), miss()] }, 'tiers[0].name must not be empty'],
      [{ tiers: [prize({ redeemCode: undefined }), miss()] }, 'Each prize tier needs a redeemCode or redeemUrl'],
      [{ tiers: [prize({ redeemCode: '  ' }), miss()] }, 'Each prize tier needs a redeemCode or redeemUrl'],
      [
        { tiers: [prize({ deliveryType: 'code', redeemCode: undefined, redeemUrl: 'https://x.test' }), miss()] },
        'Each prize tier needs a redeemCode or redeemUrl',
      ],
      [{ tiers: [prize({ deliveryType: 'url' }), miss()] }, 'Each prize tier needs a redeemCode or redeemUrl'],
      [{ tiers: [prize({ deliveryType: 'coupon' }), miss()] }, 'Invalid tiers.0.deliveryType'],
      [
        { tiers: [prize({ deliveryType: 'unique_code' }), miss()] },
        'tiers[0].codes must list at least one code for deliveryType unique_code',
      ],
      [
        { tiers: [prize({ deliveryType: 'unique_code', codes: [] }), miss()] },
        'tiers[0].codes must list at least one code for deliveryType unique_code',
      ],
      [
        { tiers: [prize({ deliveryType: 'unique_code', codes: ['A'], quantity: 1 }), miss()] },
        'tiers[0].quantity is not used with deliveryType unique_code: each code is one prize',
      ],
      [
        { tiers: [prize({ deliveryType: 'unique_code', codes: ['A', 'B', ' A '] }), miss()] },
        'tiers[0].codes lists "A" twice',
      ],
      [
        { tiers: [prize({ deliveryType: 'unique_code', codes: ['A', ''] }), miss()] },
        'tiers[0].codes[1] must be 1 to 100 printable characters',
      ],
      [
        { tiers: [prize({ deliveryType: 'unique_code', codes: ['x'.repeat(101)] }), miss()] },
        'tiers[0].codes[0] must be 1 to 100 printable characters',
      ],
      [{ tiers: [prize({ deliveryType: 'unique_code', codes: [42] }), miss()] }, 'Invalid tiers.0.codes.0'],
      [{ tiers: [prize({ codes: ['A'] }), miss()] }, 'tiers[0].codes are only used with deliveryType unique_code'],
      [{ tiers: [prize({ quantity: 1.5 }), miss()] }, 'tiers[0].quantity must be a whole number from 0 to 1000000000'],
      [{ tiers: [prize({ quantity: -1 }), miss()] }, 'tiers[0].quantity must be a whole number from 0 to 1000000000'],
      [{ tiers: [prize({ quantity: '5' }), miss()] }, 'Invalid tiers.0.quantity'],
      [{ tiers: [prize({ redeemUrl: 'ftp://files.test/x' }), miss()] }, 'tiers[0].redeemUrl must be an http(s) URL'],
      [{ tiers: [prize(), miss({ isMiss: 'yes' })] }, 'Invalid tiers.1.isMiss'],
      [{ tiers: [prize(), 'miss'] }, 'Invalid tiers.1'],
    ];
    for (const [over, message] of cases) {
      const r = await env.request('POST', BASE, { key: a.privateKey, body: gameBody(over) });
      expect([over, r.status, r.body]).toEqual([over, 400, { success: false, error: message }]);
    }
    // odds as strings in raw JSON, Infinity (1e999) and NaN (not JSON at all)
    const raw = JSON.stringify(gameBody({ tiers: [prize({ oddsPercent: 12345 }), miss()] }));
    const inf = await env.request('POST', BASE, { key: a.privateKey, rawBody: raw.replace('12345', '1e999') });
    expect(inf.body).toEqual({ success: false, error: 'tiers[0].oddsPercent must be a number between 0 and 100' });
    const nan = await env.request('POST', BASE, { key: a.privateKey, rawBody: raw.replace('12345', 'NaN') });
    expect([nan.status, nan.body]).toEqual([400, { success: false, error: 'Invalid request body' }]);
    // a 1 MB code list never reaches the handler
    const huge = gameBody({
      tiers: [
        prize({ deliveryType: 'unique_code', codes: Array.from({ length: 100_000 }, (_, i) => `CODE-${i}`) }),
        miss(),
      ],
    });
    const big = await env.request('POST', BASE, { key: a.privateKey, body: huge });
    expect(JSON.stringify(huge).length).toBeGreaterThan(1_000_000);
    expect([big.status, big.body]).toEqual([413, { success: false, error: 'Request body too large' }]);
    expect(await snapshot()).toEqual(before);
  });

  it('accepts odds that add up to 100 within 0.000001, and bounds the code count of a tier', () => {
    const thirds = [
      prize({ oddsPercent: 33.3333333 }),
      prize({ oddsPercent: 33.3333333 }),
      miss({ oddsPercent: 33.3333333 }),
    ];
    expect(normalizeTiers(thirds as never)).toHaveLength(3);
    const codes = Array.from({ length: 10_001 }, (_, i) => `C${i}`);
    expect(() => normalizeTiers([prize({ deliveryType: 'unique_code', codes }), miss()] as never)).toThrow(
      'tiers[0].codes may list at most 10000 codes',
    );
    expect(
      normalizeTiers([prize({ deliveryType: 'unique_code', codes: codes.slice(0, 10_000) }), miss()] as never)[0]!
        .codes,
    ).toHaveLength(10_000);
  });

  it('needs a private key', async () => {
    const r = await env.request('POST', BASE, { key: a.publicKey, body: gameBody() });
    expect([r.status, r.body]).toEqual([403, { success: false, error: 'This endpoint requires a private API key' }]);
  });
});

describe('get and list', () => {
  it('never shows fulfilment to a public key', async () => {
    const g = await newGame({
      tiers: [
        prize({ oddsPercent: 40, redeemCode: 'SECRET-CODE' }),
        prize({ name: 'Link', oddsPercent: 30, redeemCode: undefined, redeemUrl: 'https://secret.test/x' }),
        prize({
          name: 'Pool',
          oddsPercent: 10,
          redeemCode: undefined,
          deliveryType: 'unique_code',
          codes: ['SECRET-POOL-1'],
        }),
        miss({ oddsPercent: 20 }),
      ],
    });
    const pub = await env.request('GET', `${BASE}/${g.id}`, { key: a.publicKey });
    const list = await env.request('GET', BASE, { key: a.publicKey });
    for (const text of [pub.text, list.text]) {
      expect(text).not.toMatch(/SECRET|secret\.test|redeemCode|redeemUrl|"codes"/);
    }
    expect(pub.body.data.tiers[2]).toEqual({
      id: g.tiers[2]!.id,
      name: 'Pool',
      oddsPercent: 10,
      isMiss: false,
      color: null,
      deliveryType: 'unique_code',
      quantity: null,
      remaining: null,
      codesTotal: 1,
      codesAvailable: 1,
    });
    // a private key sees them; the list gives code counts but not the code lists
    const priv = await env.request('GET', BASE, { key: a.privateKey });
    const inList = priv.body.data.find((x: { id: string }) => x.id === g.id);
    expect(inList.tiers[0].redeemCode).toBe('SECRET-CODE');
    expect(inList.tiers[2]).not.toHaveProperty('codes');
    expect((await getGame(g.id)).tiers[2].codes).toEqual(['SECRET-POOL-1']);
  });

  it('answers 404 Game not found for another team, an unknown or a malformed id, and a plain contest', async () => {
    const g = await newGame();
    const campaign = await env.contest(a.teamId);
    for (const [id, key] of [
      [g.id, b.publicKey],
      [MISSING_ID, a.publicKey],
      ['not-a-uuid', a.publicKey],
      [campaign.id, a.publicKey],
    ] as const) {
      const r = await env.request('GET', `${BASE}/${id}`, { key });
      expect([r.status, r.body]).toEqual([404, { success: false, error: 'Game not found' }]);
    }
  });

  it('lists the team games newest first, paginated, filtered by preset (retired presets too)', async () => {
    const team = await env.team('Lister');
    const made: string[] = [];
    for (const slug of ['plinko', 'plinko', 'mystery-box']) {
      env.clock.advance(1000);
      made.push((await newGame({ slug }, team)).id);
    }
    const all = await env.request('GET', BASE, { key: team.publicKey });
    expect(all.body.data.map((x: { id: string }) => x.id)).toEqual(made.slice().reverse());
    expect(all.body.pagination).toEqual({ page: 1, limit: 20, total: 3, totalPages: 1 });
    const page2 = await env.request('GET', `${BASE}?page=2&limit=2`, { key: team.publicKey });
    expect(page2.body.data.map((x: { id: string }) => x.id)).toEqual([made[0]]);
    expect(page2.body.pagination).toEqual({ page: 2, limit: 2, total: 3, totalPages: 2 });
    const past = await env.request('GET', `${BASE}?page=5&limit=2`, { key: team.publicKey });
    expect([past.status, past.body.data, past.body.pagination]).toEqual([
      200,
      [],
      { page: 5, limit: 2, total: 3, totalPages: 2 },
    ]);
    const plinko = await env.request('GET', `${BASE}?slug=plinko`, { key: team.publicKey });
    expect(plinko.body.data.map((x: { id: string }) => x.id)).toEqual([made[1], made[0]]);
    const retired = await env.request('GET', `${BASE}?slug=trade-show-prize-wheel`, { key: team.publicKey });
    expect([retired.status, retired.body.data, retired.body.pagination.total]).toEqual([200, [], 0]);
    for (const [qs, message] of [
      ['?slug=nope', 'Unknown slug'],
      ['?limit=0', 'limit must be between 1 and 100'],
      ['?limit=101', 'limit must be between 1 and 100'],
      ['?page=0', 'page must be a positive integer'],
      ['?page=x', 'page must be a positive integer'],
    ]) {
      const r = await env.request('GET', `${BASE}${qs}`, { key: team.publicKey });
      expect([qs, r.status, r.body]).toEqual([qs, 400, { success: false, error: message }]);
    }
    // another team sees none of them
    const other = await env.request('GET', `${BASE}?slug=plinko`, { key: b.publicKey });
    expect(other.body.data.filter((x: { id: string }) => made.includes(x.id))).toEqual([]);
  });
});
