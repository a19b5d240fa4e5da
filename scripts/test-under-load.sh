#!/usr/bin/env bash
# Runs the whole test suite RUNS times in a row (default 3) while CPU-heavy processes keep every
# core busy (one busy loop per core, default `nproc`), and fails if any run fails. This proves
# that no test depends on the speed of the machine.
#
#   scripts/test-under-load.sh            # 3 runs, one busy loop per core
#   RUNS=5 HOGS=4 scripts/test-under-load.sh
#   TEST_CMD="npx vitest run test/e2e" scripts/test-under-load.sh   # a part of the suite
set -u
cd "$(dirname "$0")/.."

RUNS="${RUNS:-3}"
HOGS="${HOGS:-$(nproc 2>/dev/null || echo 2)}"
TEST_CMD="${TEST_CMD:-npm test}"
LOGDIR="$(mktemp -d "${TMPDIR:-/tmp}/test-under-load.XXXXXX")"
hogs=()

stop_hogs() {
  for pid in "${hogs[@]}"; do kill "$pid" 2>/dev/null; done
  for pid in "${hogs[@]}"; do wait "$pid" 2>/dev/null; done
  hogs=()
}
trap stop_hogs EXIT
trap 'exit 130' INT TERM

for _ in $(seq 1 "$HOGS"); do
  node -e 'for (;;) {}' &
  hogs+=("$!")
done
echo "test-under-load: ${#hogs[@]} busy loops running (pids ${hogs[*]}); ${RUNS} runs of ${TEST_CMD}; logs in ${LOGDIR}"

failed=0
summary=()
for run in $(seq 1 "$RUNS"); do
  log="${LOGDIR}/run-${run}.log"
  start=$(date +%s)
  bash -c "$TEST_CMD" >"$log" 2>&1
  code=$?
  secs=$(( $(date +%s) - start ))
  tests=$(grep -E '^ +Tests ' "$log" | tail -1 | sed -E 's/^ +Tests +//')
  files=$(grep -E '^ +Test Files ' "$log" | tail -1 | sed -E 's/^ +Test Files +//')
  if [ "$code" -eq 0 ]; then status=passed; else status="FAILED (exit ${code})"; failed=$((failed + 1)); fi
  line="run ${run}/${RUNS}: ${status} in ${secs} s; files: ${files:-?}; tests: ${tests:-?}"
  summary+=("$line")
  echo "test-under-load: ${line}"
  if [ "$code" -ne 0 ]; then grep -E '(FAIL|×) ' "$log" | head -20; fi
done

stop_hogs
echo
echo "test-under-load summary (${HOGS} busy loops on $(nproc 2>/dev/null || echo '?') cores):"
printf '  %s\n' "${summary[@]}"
if [ "$failed" -ne 0 ]; then
  echo "test-under-load: ${failed} of ${RUNS} runs failed (logs in ${LOGDIR})"
  exit 1
fi
echo "test-under-load: all ${RUNS} runs passed"
