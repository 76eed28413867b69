/**
 * The disposable-mail domain list, loaded into the `disposable_domains` table right after the
 * migrations, by the one function every migrate path calls (openPg and openPglite: `npm start`,
 * `npm run dev`, `npm run db:migrate`, the tests' template databases). The entry-create
 * statement looks domains up in that table, so the list costs the Worker bundle nothing and the
 * request no extra round trip.
 *
 * Source: the npm package `disposable-email-domains-js` (CC0), a packaging of the community list
 * github.com/disposable-email-domains/disposable-email-domains (about 9,000 domains, added only
 * with evidence, so few false positives; republished when the list changes). Updating it is
 * `npm update disposable-email-domains-js`: the next migrate sees the new version and reloads.
 * The reserved example domains (RFC 2606) are never loaded.
 */
import { createRequire } from 'node:module';
import { sql } from 'drizzle-orm';
import { batch, type Db, query } from './client.js';

const PACKAGE = 'disposable-email-domains-js';

/** RFC 2606: example.com/.org/.net (and their subdomains), and the reserved top-level names. */
export const isReservedExampleDomain = (d: string) =>
  /(^|\.)example\.(com|org|net)$/.test(d) || /\.(test|example|invalid|localhost)$/.test(d) || d === 'localhost';

function readList(): { version: string; domains: string[] } {
  const require = createRequire(import.meta.url);
  const { version } = require(`${PACKAGE}/package.json`) as { version: string };
  const { disposableEmailBlocklist } = require(PACKAGE) as { disposableEmailBlocklist: () => string[] };
  const domains = [...new Set(disposableEmailBlocklist().map((d) => d.trim().toLowerCase()))].filter(
    (d) => d !== '' && !isReservedExampleDomain(d),
  );
  return { version, domains };
}

/**
 * Fills disposable_domains when it holds another version of the list (or nothing); a no-op
 * otherwise. One batch (a transaction): replace the rows and record the version.
 */
export async function loadDisposableDomains(db: Db): Promise<{ loaded: boolean; version: string; domains: number }> {
  const { version, domains } = readList();
  const [cur] = await query<{ version: string }>(db, sql`select version from disposable_domains_source where id = 1`);
  if (cur?.version === version) return { loaded: false, version, domains: domains.length };
  await batch(db, [
    sql`delete from disposable_domains`,
    sql`insert into disposable_domains (domain)
        select distinct d from json_array_elements_text(${JSON.stringify(domains)}::json) d`,
    sql`insert into disposable_domains_source (id, package, version, domains, loaded_at)
        values (1, ${PACKAGE}, ${version}, ${domains.length}, now())
        on conflict (id) do update set package = excluded.package, version = excluded.version,
          domains = excluded.domains, loaded_at = excluded.loaded_at`,
  ]);
  return { loaded: true, version, domains: domains.length };
}
