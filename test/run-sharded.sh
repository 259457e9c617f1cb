#!/usr/bin/env bash
# Runs the given test files in shards at once (TEST_SHARDS, default 3): each shard is one Node process that
# loads larder's modules once for all its files (--test-isolation=none), which saves most of the time a
# process per file spends compiling TypeScript. test/shard-plan.ts gives each shard about the same running
# time (test/shard-weights.json). Each shard's report is printed whole when it ends. With TEST_JUNIT_DIR set,
# each shard also writes a JUnit report there (`node test/shard-plan.ts --weights DIR` turns them into weights).
set -uo pipefail
shards=${TEST_SHARDS:-3}
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT
planned=$(node "$(dirname "$0")/shard-plan.ts" "$shards" "$@") || exit 1
[ "$(wc -w <<<"$planned")" -eq $# ] || { echo "test/shard-plan.ts planned $(wc -w <<<"$planned") of $# files" >&2; exit 1; }
mapfile -t plan <<<"$planned"
pids=()
for ((i = 1; i <= shards; i++)); do
  read -ra files <<<"${plan[$((i - 1))]:-}"
  if [ ${#files[@]} -eq 0 ]; then
    pids+=("")
    continue
  fi
  junit=()
  [ -z "${TEST_JUNIT_DIR:-}" ] || junit=(--test-reporter=spec --test-reporter-destination=stdout --test-reporter=junit --test-reporter-destination="$TEST_JUNIT_DIR/$i.xml")
  node --import tsx --test --test-isolation=none "${junit[@]}" "${files[@]}" >"$logs/$i.log" 2>&1 &
  pids+=($!)
done
status=0
for ((i = 1; i <= shards; i++)); do
  [ -n "${pids[$((i - 1))]}" ] || continue
  wait "${pids[$((i - 1))]}" || status=1
  echo "=== shard $i of $shards"
  cat "$logs/$i.log"
done
exit $status
