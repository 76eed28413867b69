#!/bin/sh
# npm test: the Node suite, then the workerd suite, both run whatever the first gave; fails when either failed.
vitest run
node=$?
vitest run -c vitest.workers.config.ts
worker=$?
echo "npm test: Node suite exit $node, workerd suite exit $worker"
[ "$node" -eq 0 ] && [ "$worker" -eq 0 ]
