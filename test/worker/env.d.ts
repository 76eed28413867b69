// `cloudflare:test` (SELF, env, createScheduledController, ...) for the workerd suites
/// <reference types="@cloudflare/vitest-pool-workers/types" />
