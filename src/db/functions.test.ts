/**
 * The database's own code is the files under src/db/functions/: after the migrations and the
 * files, every function of schema public (the generated statement functions and the extensions'
 * aside) and every trigger is defined in exactly one file, the live body of each is the file's,
 * applying the files again changes nothing, and docs/architecture.md names every trigger.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, query, type TestEnv } from '../../test/support/harness.js';
import { databaseFunctionFiles, installDatabaseFunctions } from './functions.js';

let env: TestEnv;
beforeAll(async () => {
  env = await createTestEnv();
});
afterAll(() => env.close());

/** each definition of the files: kind, name, file, and its text (a function's body, a trigger's statement) */
function fromFiles() {
  return databaseFunctionFiles().flatMap(({ file, definitions }) =>
    definitions.map((d) => {
      const f = /CREATE OR REPLACE FUNCTION (\w+)\((.*)\)/.exec(d);
      const t = /CREATE OR REPLACE TRIGGER (\w+)/.exec(d);
      if (!f && !t) throw new Error(`${file}: a definition that is neither a function nor a trigger:\n${d}`);
      const body = f ? /AS \$function\$([\s\S]*)\$function\$;?\s*$/.exec(d)?.[1] : undefined;
      return {
        kind: f ? ('function' as const) : ('trigger' as const),
        name: f ? `${f[1]}(${f[2]})` : t![1]!,
        file,
        text: f
          ? (body ?? null)
          : d
              .replace(/^--.*\n/gm, '')
              .trim()
              .replace(/;$/, ''),
      };
    }),
  );
}

async function live() {
  const functions = await query<{ name: string; body: string }>(
    env.db,
    sql`select p.proname || '(' || pg_get_function_arguments(p.oid) || ')' as name, p.prosrc as body
        from pg_proc p join pg_namespace n on n.oid = p.pronamespace
        where n.nspname = 'public' and p.proname !~ '^ce_[0-9a-f]{12,17}$'
          and not exists (select 1 from pg_depend d where d.objid = p.oid and d.deptype = 'e')
        order by 1`,
  );
  const triggers = await query<{ name: string; def: string }>(
    env.db,
    sql`select tgname as name, replace(pg_get_triggerdef(t.oid), ' ON public.', ' ON ') as def
        from pg_trigger t where not tgisinternal order by 1`,
  );
  return { functions, triggers };
}

describe('the database functions on the map', () => {
  it('every function and trigger is defined in exactly one file under src/db/functions/, as it is live', async () => {
    const defs = fromFiles();
    const { functions, triggers } = await live();
    const count = new Map<string, string[]>();
    for (const d of defs) count.set(`${d.kind} ${d.name}`, [...(count.get(`${d.kind} ${d.name}`) ?? []), d.file]);
    expect([...count].filter(([, files]) => files.length > 1)).toEqual([]);
    expect(functions.map((f) => f.name).sort()).toEqual(
      defs
        .filter((d) => d.kind === 'function')
        .map((d) => d.name)
        .sort(),
    );
    expect(triggers.map((t) => t.name).sort()).toEqual(
      defs
        .filter((d) => d.kind === 'trigger')
        .map((d) => d.name)
        .sort(),
    );
    // the live bodies and trigger statements are the files'
    const file = new Map(defs.map((d) => [`${d.kind} ${d.name}`, d.text]));
    for (const f of functions) expect([f.name, f.body]).toEqual([f.name, file.get(`function ${f.name}`)]);
    for (const t of triggers)
      expect([t.name, `CREATE OR REPLACE ${t.def.replace(/^CREATE /, '')}`]).toEqual([
        t.name,
        file.get(`trigger ${t.name}`),
      ]);
  });

  it('applying the files again changes nothing', async () => {
    const before = await live();
    expect(await installDatabaseFunctions(env.db)).toBe(fromFiles().length);
    expect(await live()).toEqual(before);
  });

  it('docs/architecture.md names every trigger', async () => {
    const doc = readFileSync(join(process.cwd(), 'docs/architecture.md'), 'utf8');
    const { triggers } = await live();
    expect(triggers.map((t) => t.name).filter((name) => !doc.includes(`\`${name}\``))).toEqual([]);
  });
});

describe('migrations change tables, the files hold the code', () => {
  /**
   * The last migration written before the database's code moved to src/db/functions/: it and the
   * ones before may create functions and triggers (the files replace them after the migrations);
   * a later migration that does would be overwritten by the files, or hide a body the files do
   * not have, so none may.
   */
  const LAST_WITH_CODE = '0027_reward_engine';

  it(`no migration after ${LAST_WITH_CODE} creates a function or a trigger`, () => {
    const journal = JSON.parse(readFileSync(join(process.cwd(), 'migrations/meta/_journal.json'), 'utf8')) as {
      entries: { tag: string }[];
    };
    const tags = journal.entries.map((e) => e.tag);
    const last = tags.indexOf(LAST_WITH_CODE);
    expect(last).toBeGreaterThan(0);
    const offenders = tags.slice(last + 1).filter((tag) => {
      const text = readFileSync(join(process.cwd(), `migrations/${tag}.sql`), 'utf8').replace(/^--.*$/gm, '');
      return /\bcreate\s+(or\s+replace\s+)?(function|trigger|procedure)\b/i.test(text);
    });
    expect(offenders, 'put the definition in its file under src/db/functions/').toEqual([]);
  });
});
