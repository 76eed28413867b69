/**
 * A database that cannot be reached, said in one sentence with what to do (npm run db:migrate,
 * npm run dev): never a driver's stack trace.
 */

/** The innermost cause of a failure (drizzle wraps the driver's error in "Failed query: …"). */
function rootCause(e: unknown): { message: string; code?: string } {
  let cur: any = e;
  while (cur?.cause) cur = cur.cause;
  if (cur instanceof AggregateError && cur.errors.length) cur = cur.errors[0];
  return {
    message: cur instanceof Error ? cur.message : String(cur),
    code: typeof cur?.code === 'string' ? cur.code : undefined,
  };
}

export function explainDbError(url: string, e: unknown): string {
  const { message, code } = rootCause(e);
  const u = new URL(url);
  if (code === 'ECONNREFUSED') return `nothing answers at ${u.host} (connection refused): is Postgres running there?`;
  if (code === 'ENOTFOUND') return `the host ${u.hostname} is not known: check DATABASE_URL`;
  if (code === '3D000') {
    const name = decodeURIComponent(u.pathname.slice(1));
    const who = u.username ? ` -U ${decodeURIComponent(u.username)}` : '';
    return `${message}: create it first with \`createdb -h ${u.hostname} -p ${u.port || '5432'}${who} ${name}\` (or in the Neon console)`;
  }
  if (code === '28P01' || code === '28000') return `${message}: check the user and password in DATABASE_URL`;
  return message;
}
