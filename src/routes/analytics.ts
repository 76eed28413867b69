import { Hono } from 'hono';
import type { AppEnv } from '../http/context.js';

export function analyticsRoutes() {
  const r = new Hono<AppEnv>();
  return r;
}
