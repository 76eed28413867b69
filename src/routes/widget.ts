import { Hono } from 'hono';
import type { AppEnv } from '../http/context.js';

export function widgetRoutes() {
  const r = new Hono<AppEnv>();
  return r;
}
