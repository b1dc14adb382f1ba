#!/bin/sh
# Fuzzes code-mode-core with cargo-fuzz (docs/fuzzing.md).
#
#   sh scripts/fuzz.sh [SECONDS [TARGET...]]
#
# Builds the targets, runs each for SECONDS (30 by default), one after the
# other, and prints per target its executions, executions per second, corpus
# size and findings (new files in fuzz/artifacts/<target>/: crashes,
# timeouts of more than 25 s, inputs that pass 2 GB). With the `oom` target
# (in the default list) it first runs the full allocation-failure sweep:
# every corpus cell of fuzz/seeds/oom/ with its Nth allocation refused, for
# every N it reaches, and prints its "oom sweep: C cells, R runs (cells x N)"
# line. Exits nonzero if the sweep failed or any target found something. Not
# part of `npm test`. Needs nightly Rust and cargo-fuzz:
# cargo +nightly install cargo-fuzz --locked
#
# FUZZ_ARGS adds libFuzzer options, e.g. to keep going past timeouts and
# out-of-memory inputs: FUZZ_ARGS='-fork=1 -ignore_timeouts=1 -ignore_ooms=1'
set -eu

seconds=${1:-30}
[ $# -gt 0 ] && shift
targets=${*:-source json_bridge catalog_search exec_input oom}
cd "$(dirname "$0")/.."

failed=0
case " $targets " in
*" oom "*)
    # The full sweep (docs/fuzzing.md): stable Rust, the ci profile.
    mkdir -p fuzz/artifacts/oom
    sweep_log=fuzz/artifacts/oom/sweep.log
    start=$(date +%s)
    if cargo test --profile ci -p code-mode-core --test oom \
        every_corpus_cell_survives_every_allocation_failure -- --ignored --nocapture \
        >"$sweep_log" 2>&1; then
        sweep=ok
    else
        sweep=FAILED
        failed=1
    fi
    summary=$(grep '^oom sweep:' "$sweep_log" || echo 'oom sweep: no summary')
    echo "$summary, $(($(date +%s) - start)) s, $sweep"
    if [ "$sweep" = FAILED ]; then
        grep -E 'panicked|N=[0-9]+|Assertion|SIG' "$sweep_log" | tail -n 6 | sed 's/^/    /'
        echo "    see $sweep_log; replay a finding with the replay_one test (docs/fuzzing.md)"
    fi
    ;;
esac

# No sanitizer: the targets' own checks and Rust's panics find the bugs, and
# AddressSanitizer's larger stack frames would overflow a worker's stack on
# the deepest sources the depth guard accepts (a false crash). docs/fuzzing.md
# shows how to run json_bridge under AddressSanitizer.
for target in $targets; do
    cargo +nightly fuzz build -s none "$target"
done

printf '\n%-16s %12s %8s %8s  %s\n' target executions exec/s corpus findings
for target in $targets; do
    corpus=fuzz/corpus/$target
    artifacts=fuzz/artifacts/$target
    mkdir -p "$corpus" "$artifacts"
    log=$artifacts/fuzz.log
    before=$(ls "$artifacts" | grep -c -v -E '^(fuzz|sweep)\.log$' || true)
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
    found=$(($(ls "$artifacts" | grep -c -v -E '^(fuzz|sweep)\.log$' || true) - before))
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
