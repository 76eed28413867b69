import { Hono } from 'hono';
import type { AppEnv } from '../http/context.js';

export function entryRoutes() {
  const r = new Hono<AppEnv>();
  return r;
}
