#!/usr/bin/env bash
# run_fuzzer.sh FUZZER SECONDS CORPUS DICT SEED... : copies the seeds into a fresh corpus
# folder and fuzzes for SECONDS. libFuzzer exits non-zero on a crash, a leak, a sanitizer
# report, an input slower than 10 s or one needing more than 2 GB; the input is kept as
# crash-*, leak-*, timeout-* or oom-* in the build folder, to become a regression under
# tests/fuzz/regressions/.
set -euo pipefail
fuzzer=$1 seconds=$2 corpus=$3 dict=$4
shift 4
rm -rf "$corpus"
mkdir -p "$corpus"
for seed in "$@"; do
    cp "$seed" "$corpus/$(basename "$(dirname "$seed")")-$(basename "$seed")"
done
cd "$(dirname "$corpus")"
exec "$fuzzer" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
    -dict="$dict" -print_final_stats=1 "$corpus"
