/** Column helpers every table file uses. */
import { sql } from 'drizzle-orm';
import { customType, timestamp, uuid } from 'drizzle-orm/pg-core';
import { DEFAULT_SHARE_CHANNELS, SHARE_CHANNELS } from '../../lib/share-channels.js';

/** raw bytes (seeds, hashes); drivers hand them over as Buffer/Uint8Array */
export const bytea = customType<{ data: Uint8Array; driverData: Uint8Array }>({ dataType: () => 'bytea' });

export const ts = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

export const createdAt = () => ts('created_at').notNull().defaultNow();

export const id = () => uuid('id').primaryKey().defaultRandom();

/** `('x', 'facebook', …)`: the share channels (src/lib/share-channels.ts) as a check's list, the one source of both. */
export const shareChannelList = sql.raw(`(${SHARE_CHANNELS.map((c) => `'${c}'`).join(', ')})`);
/** the share channels' column default, from DEFAULT_SHARE_CHANNELS */
export const defaultShareChannels = sql.raw(`'{${DEFAULT_SHARE_CHANNELS.join(',')}}'::text[]`);
