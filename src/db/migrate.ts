/**
 * Applies drizzle-kit's generated migrations (migrations/*.sql + meta/_journal.json) the same
 * way on every driver: drizzle's migrator for that driver, one journal table.
 */
import { fileURLToPath } from 'node:url';

export const migrationsFolder = fileURLToPath(new URL('../../migrations', import.meta.url));
