/**
 * An error as it may be logged: never the values bound to a statement (emails, names, phone
 * numbers). Drizzle's query errors put the parameters in their message ("Failed query: ...
 * params: ..."); this keeps the statement text, the SQLSTATE, the constraint and the database's
 * message with quoted values blanked, and the stack without the message line.
 */
export function describeError(err: unknown): Record<string, unknown> {
  if (!(err instanceof Error)) return { error: redact(String(err)) };
  const out: Record<string, unknown> = {};
  const q = err as Error & { query?: unknown };
  let db: { code?: unknown; constraint?: unknown; message?: unknown } | undefined;
  for (let cur: unknown = err, i = 0; i < 5 && cur && typeof cur === 'object'; i++) {
    const o = cur as { code?: unknown; cause?: unknown };
    if (typeof o.code === 'string' && /^[0-9A-Z]{5}$/.test(o.code)) {
      db = o as typeof db;
      break;
    }
    cur = o.cause;
  }
  if (typeof q.query === 'string') {
    out.statement = q.query.replace(/\s+/g, ' ').slice(0, 8000);
    const cause = q.cause instanceof Error ? q.cause : undefined;
    out.error = `${cause?.name ?? 'Error'}: ${redact(cause?.message ?? 'query failed')}`;
  } else {
    out.error = `${err.name}: ${redact(err.message)}`;
  }
  if (db) {
    out.sqlstate = db.code;
    if (typeof db.constraint === 'string') out.constraint = db.constraint;
  }
  // the first stack line repeats the message (and so the parameters): keep the frames only
  if (err.stack)
    out.stack = err.stack
      .split('\n')
      .filter((l) => /^\s+at /.test(l))
      .join('\n');
  return out;
}

/**
 * Drops what a message may carry of the data: Drizzle's "params:" part, the value Postgres
 * quotes at the end of its input errors (`invalid input syntax for type uuid: "…"`) and the
 * `Key (col)=(value)` of constraint details. Names of relations and columns stay.
 */
function redact(message: string): string {
  const cut = message.indexOf('\nparams:');
  const text = cut >= 0 ? message.slice(0, cut) : message;
  return text.replace(/: "[^"]*"$/, ': "…"').replace(/\(([^()]*)\)=\([^()]*\)/g, '($1)=(…)');
}
