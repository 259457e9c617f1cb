#!/usr/bin/env bash
# Runs the given test files in shards at once (TEST_SHARDS, default 3): each shard is one Node process that
# loads larder's modules once for all its files (--test-isolation=none), which saves most of the time a
# process per file spends compiling TypeScript. Each shard's report is printed whole when it ends.
set -uo pipefail
shards=${TEST_SHARDS:-3}
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT
pids=()
for ((i = 1; i <= shards; i++)); do
  node --import tsx --test --test-isolation=none --test-shard="$i/$shards" "$@" >"$logs/$i.log" 2>&1 &
  pids+=($!)
done
status=0
for ((i = 1; i <= shards; i++)); do
  wait "${pids[$((i - 1))]}" || status=1
  echo "=== shard $i of $shards"
  cat "$logs/$i.log"
done
exit $status
