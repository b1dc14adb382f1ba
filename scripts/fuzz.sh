#!/bin/sh
# Fuzzes code-mode-core with cargo-fuzz (docs/fuzzing.md).
#
#   sh scripts/fuzz.sh [SECONDS [TARGET...]]
#
# Builds the targets, runs each for SECONDS (30 by default), one after the
# other, and prints per target its executions, executions per second, corpus
# size and findings (new files in fuzz/artifacts/<target>/: crashes,
# timeouts of more than 25 s, inputs that pass 2 GB). Exits nonzero if any
# target found something. Not part of `npm test`. Needs nightly Rust and
# cargo-fuzz: cargo +nightly install cargo-fuzz --locked
#
# FUZZ_ARGS adds libFuzzer options, e.g. to keep going past timeouts and
# out-of-memory inputs: FUZZ_ARGS='-fork=1 -ignore_timeouts=1 -ignore_ooms=1'
set -eu

seconds=${1:-30}
[ $# -gt 0 ] && shift
targets=${*:-source json_bridge catalog_search exec_input}
cd "$(dirname "$0")/.."

# No sanitizer: the targets' own checks and Rust's panics find the bugs, and
# AddressSanitizer's larger stack frames would overflow a worker's stack on
# the deepest sources the depth guard accepts (a false crash). docs/fuzzing.md
# shows how to run json_bridge under AddressSanitizer.
for target in $targets; do
    cargo +nightly fuzz build -s none "$target"
done

failed=0
printf '\n%-16s %12s %8s %8s  %s\n' target executions exec/s corpus findings
for target in $targets; do
    corpus=fuzz/corpus/$target
    artifacts=fuzz/artifacts/$target
    mkdir -p "$corpus" "$artifacts"
    log=$artifacts/fuzz.log
    before=$(ls "$artifacts" | grep -c -v '^fuzz.log$' || true)
    dict=
    if [ -f "fuzz/dicts/$target.dict" ]; then
        dict=-dict=fuzz/dicts/$target.dict
    fi
    # The first corpus directory collects new inputs; the seeds are only read.
    # shellcheck disable=SC2086
    if cargo +nightly fuzz run -s none "$target" "$corpus" "fuzz/seeds/$target" -- \
        -max_total_time="$seconds" -timeout=25 -print_final_stats=1 $dict ${FUZZ_ARGS:-} \
        >"$log" 2>&1; then
        status=ok
    else
        status=FAILED
    fi
    # Final stats when libFuzzer prints them, else its last status line.
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
    rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -n 1)
    last=$(grep -E '^#[0-9]+' "$log" | tail -n 1 || true)
    [ -n "$execs" ] || execs=$(echo "$last" | sed -n 's/^#\([0-9]*\).*/\1/p')
    [ -n "$rate" ] || rate=$(echo "$last" | sed -n 's/.*exec\/s: \([0-9]*\).*/\1/p')
    size=$(ls "$corpus" | wc -l)
    found=$(($(ls "$artifacts" | grep -c -v '^fuzz.log$' || true) - before))
    [ "$found" -eq 0 ] || status=FAILED
    printf '%-16s %12s %8s %8s  %s, %s new in %s\n' "$target" "${execs:-?}" "${rate:-?}" \
        "$size" "$status" "$found" "$artifacts"
    if [ "$status" = FAILED ]; then
        failed=1
        grep -E 'ERROR|panicked|SUMMARY|Test unit written to' "$log" | head -n 6 | sed 's/^/    /'
    fi
done

if [ "$failed" -ne 0 ]; then
    echo "fuzz: see fuzz/artifacts/<target>/fuzz.log; docs/fuzzing.md says what to do with a finding" >&2
    exit 1
fi
