import { PGlite } from '@electric-sql/pglite';
let t=Date.now(); const db = await PGlite.create(); await db.query('select 1'); console.log('cold', Date.now()-t);
t=Date.now(); const dump = await db.dumpDataDir('none'); console.log('dump', Date.now()-t, dump.size);
t=Date.now(); const db2 = await PGlite.create({loadDataDir: dump}); await db2.query('select 1'); console.log('load', Date.now()-t);
t=Date.now(); const db3 = await PGlite.create(); await db3.query('select 1'); console.log('cold2', Date.now()-t);
t=Date.now(); const c = await db3.clone?.(); console.log('clone', typeof db3.clone, Date.now()-t);
