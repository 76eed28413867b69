/**
 * Stand-in for zod in the Worker bundle (wrangler.toml [alias]). hono-openapi's schema
 * converters import zod lazily for zod schemas; we only use valibot, and zod would add 400 KiB.
 */
export {};
