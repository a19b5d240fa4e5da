#!/usr/bin/env bash
# Builds the native Poseidon8 kernels (portable and ADX) with AddressSanitizer and UndefinedBehaviorSanitizer (and
# warnings as errors) into a small C driver, and runs it on every Poseidon8 vector plus random
# structs checked against the BigInt reference (scripts/native-test-input.ts). Exit status ≠ 0
# on a sanitizer report, a warning or a wrong hash.
set -euo pipefail
cd "$(dirname "$0")/.."
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
${CC:-cc} -std=c11 -O1 -g -Wall -Wextra -Werror -fsanitize=address,undefined -fno-sanitize-recover=all \
  -fno-omit-frame-pointer native/poseidon8.c native/poseidon8-adx.c native/test-driver.c -o "$out/driver"
npx tsx scripts/native-test-input.ts > "$out/input.txt"
# Every kernel this CPU supports, then the portable one alone (as on a CPU without BMI2/ADX).
ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 "$out/driver" < "$out/input.txt"
ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 "$out/driver" portable < "$out/input.txt"
