import { Hono } from 'hono';
import type { AppEnv } from '../http/context.js';

export function confirmRoutes() {
  const r = new Hono<AppEnv>();
  return r;
}
