import { Hono } from 'hono';
import type { AppEnv } from '../http/context.js';

export function bonusActionRoutes() {
  const r = new Hono<AppEnv>();
  return r;
}
