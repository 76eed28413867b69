import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';

/** `{ success: true, data, ...extra }`, the only success shape the API answers. */
export function ok<T>(c: Context, data: T, status: ContentfulStatusCode = 200, extra: Record<string, unknown> = {}) {
  return c.json({ success: true as const, data, ...extra }, status);
}

export function fail(c: Context, status: ContentfulStatusCode, error: string, headers: Record<string, string> = {}) {
  for (const [k, v] of Object.entries(headers)) c.header(k, v);
  return c.json({ success: false as const, error }, status);
}

export interface Pagination {
  page: number;
  limit: number;
  total: number;
  totalPages: number;
}

export function pagination(page: number, limit: number, total: number): Pagination {
  return { page, limit, total, totalPages: Math.ceil(total / limit) };
}
