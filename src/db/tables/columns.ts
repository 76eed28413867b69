/** Column helpers every table file uses. */
import { customType, timestamp, uuid } from 'drizzle-orm/pg-core';

/** raw bytes (seeds, hashes); drivers hand them over as Buffer/Uint8Array */
export const bytea = customType<{ data: Uint8Array; driverData: Uint8Array }>({ dataType: () => 'bytea' });

export const ts = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

export const createdAt = () => ts('created_at').notNull().defaultNow();

export const id = () => uuid('id').primaryKey().defaultRandom();
