#!/bin/sh
# npm test: the Node suite and the workerd suite side by side (the Node suite's files wait on servers
# and browsers much of the time: together they end sooner than one after the other); the workerd
# suite's output is printed after the Node suite's. Fails when either failed.
out=$(mktemp)
trap 'rm -f "$out"' EXIT
vitest run -c vitest.workers.config.ts >"$out" 2>&1 &
pid=$!
vitest run
node=$?
wait "$pid"
worker=$?
echo
echo "== the workerd suite (ran beside the Node suite)"
cat "$out"
echo "npm test: Node suite exit $node, workerd suite exit $worker"
[ "$node" -eq 0 ] && [ "$worker" -eq 0 ]
