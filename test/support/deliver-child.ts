/**
 * A delivering process for the fault test (src/events/events-faults.test.ts): delivers every due event
 * of the database at argv[2] (real fetch, http to localhost allowed) until nothing is due.
 * The test SIGKILLs it mid-batch.
 */
import { openPg } from '../../src/db/drivers/pg.js';
import { deliverDueEvents } from '../../src/events/deliver.js';

const h = await openPg(process.argv[2]!, { max: 2, migrate: false });
process.stdout.write('ready\n');
for (;;) {
  const r = await deliverDueEvents(
    h.db,
    { fetch: globalThis.fetch, allowHttp: true },
    { now: () => new Date() },
    { limit: 10, concurrency: 2 },
  );
  if (r.delivered + r.retrying + r.failed === 0) break;
}
await h.close();
process.stdout.write('done\n');
