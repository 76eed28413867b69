#!/bin/sh
# npm test: the Node suite and the workerd suite side by side (the Node suite's files wait on servers
# and browsers much of the time: together they end sooner than one after the other); the workerd
# suite's output is printed after the Node suite's. Fails when either failed, and then prints the
# failed tests of the failing suites once more at the very end, where the tail of a long log shows them.
worker_out=$(mktemp)
node_out=$(mktemp)
trap 'rm -f "$worker_out" "$node_out"' EXIT
vitest run -c vitest.workers.config.ts >"$worker_out" 2>&1 &
pid=$!
vitest run >"$node_out" 2>&1 &
node_pid=$!
tail -f "$node_out" --pid="$node_pid" 2>/dev/null || true
wait "$node_pid"
node=$?
wait "$pid"
worker=$?
echo
echo "== the workerd suite (ran beside the Node suite)"
cat "$worker_out"
# vitest's own summary of what failed: from "Failed Tests" (or "Failed Suites") to the counts
failed() {
  sed 's/\x1b\[[0-9;]*m//g' "$1" | awk '/⎯+ Failed (Tests|Suites) [0-9]+ ⎯+/ { on = 1 } /^ *Test Files / { on = 0 } on' | head -n 200
}
if [ "$node" -ne 0 ]; then echo; echo "== the Node suite FAILED (exit $node): its failures again"; failed "$node_out"; fi
if [ "$worker" -ne 0 ]; then echo; echo "== the workerd suite FAILED (exit $worker): its failures again"; failed "$worker_out"; fi
echo "npm test: Node suite exit $node, workerd suite exit $worker"
[ "$node" -eq 0 ] && [ "$worker" -eq 0 ]
