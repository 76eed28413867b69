/**
 * Which receiver URLs outbound events may go to: every special-purpose range of the IANA IPv4
 * and IPv6 registries that is not globally reachable is refused (with the IPv6 forms that carry
 * such an IPv4 address), fragments are refused, and an endpoint stored under an older, looser
 * rule is refused again at delivery time.
 */
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, query, type TeamFixture, type TestEnv } from '../../test/support/harness.js';
import { deliverDueEvents, deliveryContext } from './deliver.js';
import { isBlockedAddress } from './urls.js';

let env: TestEnv;
let t: TeamFixture;
const calls: string[] = [];
beforeAll(async () => {
  env = await createTestEnv();
  env.deps.fetch = async (input) => {
    calls.push(String(input));
    return new Response('ok', { status: 200 });
  };
  t = await env.team();
});
afterAll(() => env.close());

const create = (url: string) => env.request('POST', '/api/v1/webhook-endpoints', { key: t.privateKey, body: { url } });

/** [url, what it is]: each answers 400 Invalid url and stores nothing */
const REFUSED: Array<[string, string]> = [
  ['https://[::ffff:0:127.0.0.1]/x', 'IPv4-translated loopback'],
  ['https://[::ffff:0:8.8.8.8]/x', 'IPv4-translated (the whole ::ffff:0:0:0/96 is not globally reachable)'],
  ['https://[::ffff:127.0.0.1]/x', 'IPv4-mapped loopback'],
  ['https://[::ffff:8.8.8.8]/x', 'IPv4-mapped (::ffff:0:0/96 is not globally reachable)'],
  ['https://[::127.0.0.1]/x', 'IPv4-compatible (deprecated)'],
  ['https://[2002:7f00:1::]/x', '6to4 of 127.0.0.1'],
  ['https://[2002:a00:1::]/x', '6to4 of 10.0.0.1'],
  ['https://[2002:c0a8:101::1]/x', '6to4 of 192.168.1.1'],
  ['https://[64:ff9b::7f00:1]/x', 'NAT64 of 127.0.0.1'],
  ['https://[64:ff9b::a9fe:a9fe]/x', 'NAT64 of 169.254.169.254 (cloud metadata)'],
  ['https://[64:ff9b:1::808:808]/x', 'local-use NAT64 64:ff9b:1::/48'],
  ['https://[100::1]/x', 'discard-only 100::/64'],
  ['https://[100:0:0:1::1]/x', 'dummy IPv6 prefix'],
  ['https://[2001::1]/x', 'Teredo 2001::/32'],
  ['https://[2001:2::1]/x', 'benchmarking 2001:2::/48'],
  ['https://[2001:10::1]/x', 'deprecated ORCHID'],
  ['https://[2001:5::1]/x', 'IETF protocol assignments 2001::/23'],
  ['https://[2001:db8::1]/x', 'documentation 2001:db8::/32'],
  ['https://[3fff::1]/x', 'documentation 3fff::/20'],
  ['https://[5f00::1]/x', 'segment routing SIDs'],
  ['https://[::1]/x', 'loopback'],
  ['https://[::]/x', 'unspecified'],
  ['https://[fd00::1]/x', 'unique local'],
  ['https://[fe80::1]/x', 'link-local'],
  ['https://[fec0::1]/x', 'site-local (deprecated)'],
  ['https://[ff02::1]/x', 'multicast'],
  ['https://0.0.0.0/x', '"this" network'],
  ['https://0.1.2.3/x', '"this" network 0/8'],
  ['https://10.1.2.3/x', 'private 10/8'],
  ['https://100.64.0.1/x', 'shared address space 100.64/10'],
  ['https://127.0.0.1/x', 'loopback'],
  ['https://2130706433/x', 'loopback written as a number'],
  ['https://169.254.169.254/x', 'link-local (cloud metadata)'],
  ['https://172.16.0.1/x', 'private 172.16/12'],
  ['https://192.0.0.1/x', 'IPv4 service continuity prefix'],
  ['https://192.0.0.8/x', 'IPv4 dummy address'],
  ['https://192.0.0.170/x', 'NAT64/DNS64 discovery'],
  ['https://192.0.2.1/x', 'documentation TEST-NET-1'],
  ['https://192.88.99.1/x', 'deprecated 6to4 relay anycast'],
  ['https://192.168.1.1/x', 'private 192.168/16'],
  ['https://198.18.0.1/x', 'benchmarking 198.18/15'],
  ['https://198.51.100.7/x', 'documentation TEST-NET-2'],
  ['https://203.0.113.9/x', 'documentation TEST-NET-3'],
  ['https://224.0.0.1/x', 'multicast'],
  ['https://240.0.0.1/x', 'reserved 240/4'],
  ['https://255.255.255.255/x', 'limited broadcast'],
  ['https://localhost/x', 'localhost'],
  ['https://hooks.example.com/x#fragment', 'a fragment (never sent to the receiver)'],
  ['https://hooks.example.com/x#', 'an empty fragment'],
];

/** globally reachable: accepted */
const ACCEPTED: Array<[string, string]> = [
  ['https://hooks.example.com/x', 'a name'],
  ['https://8.8.8.8/x', 'public IPv4'],
  ['https://192.0.0.9/x', 'PCP anycast (the registry marks it globally reachable)'],
  ['https://192.31.196.1/x', 'AS112-v4 (globally reachable)'],
  ['https://[2606:4700:4700::1111]/x', 'public IPv6'],
  ['https://[64:ff9b::808:808]/x', 'NAT64 of 8.8.8.8'],
  ['https://[2002:808:808::1]/x', '6to4 of 8.8.8.8'],
  ['https://[2001:1::1]/x', 'PCP anycast 2001:1::1 (globally reachable)'],
  ['https://[2001:4:112::1]/x', 'AS112-v6 (globally reachable)'],
  ['https://[2001:20::1]/x', 'ORCHIDv2 (globally reachable)'],
];

describe('receiver URLs', () => {
  it.each(REFUSED)('refuses %s (%s) with 400 Invalid url, storing nothing', async (url) => {
    const before = await query<{ n: number }>(
      env.db,
      sql`select count(*)::int as n from webhook_endpoints where team_id = ${t.teamId}`,
    );
    const r = await create(url);
    expect(r.status).toBe(400);
    expect(r.body).toEqual({ success: false, error: 'Invalid url' });
    const after = await query<{ n: number }>(
      env.db,
      sql`select count(*)::int as n from webhook_endpoints where team_id = ${t.teamId}`,
    );
    expect(after[0]!.n).toBe(before[0]!.n);
  });

  it.each(ACCEPTED)('accepts %s (%s)', async (url) => {
    const r = await create(url);
    expect(r.status, r.text).toBe(201);
    expect(r.body.data.url).toBe(new URL(url).toString());
    expect(
      (await env.request('DELETE', `/api/v1/webhook-endpoints/${r.body.data.id}`, { key: t.privateKey })).status,
    ).toBe(200);
  });

  it('resolved addresses are judged by the same table (Node resolves names before each attempt)', () => {
    for (const a of [
      '127.0.0.1',
      '10.0.0.7',
      '::ffff:0:7f00:1',
      '2002:7f00:1::',
      '100::1',
      '203.0.113.9',
      '64:ff9b::a9fe:a9fe',
    ]) {
      expect(isBlockedAddress(a), a).toBe(true);
    }
    for (const a of ['8.8.8.8', '2606:4700:4700::1111', '64:ff9b::808:808']) expect(isBlockedAddress(a), a).toBe(false);
  });

  it('an endpoint stored under an older, looser rule is refused at delivery time, and nothing is sent', async () => {
    const team = await env.team('Old endpoint team');
    const ok = await env.request('POST', '/api/v1/webhook-endpoints', {
      key: team.privateKey,
      body: { url: 'https://hooks.example.com/in' },
    });
    expect(ok.status).toBe(201);
    // what an earlier version accepted: IPv4-translated loopback
    await query(
      env.db,
      sql`update webhook_endpoints set url = 'https://[::ffff:0:7f00:1]/x' where id = ${ok.body.data.id}`,
    );
    calls.length = 0;
    const test = await env.request('POST', `/api/v1/webhook-endpoints/${ok.body.data.id}/test`, {
      key: team.privateKey,
    });
    expect(test.status).toBe(202);
    await env.settle();
    await deliverDueEvents(env.db, deliveryContext(env.deps), env.clock);
    expect(calls).toEqual([]);
    const log = await env.request('GET', `/api/v1/webhook-endpoints/${ok.body.data.id}/deliveries`, {
      key: team.privateKey,
    });
    expect(log.body.data[0]).toMatchObject({
      type: 'webhook.test',
      lastStatusCode: null,
      lastError: 'Refused: invalid url',
    });
  });
});
