#!/usr/bin/env bash
# Run every fuzz target for SECONDS each (default 60), one after another, one process at a time.
#   fuzz/run.sh 20            # CI smoke
#   fuzz/run.sh 900 quantity  # one target for 15 minutes
#   fuzz/run.sh --list        # the targets, one a line (the `[[bin]]`s of fuzz/Cargo.toml)
# fuzz/record.sh runs them the same way and writes the figures into SECURITY.md.
# Needs cargo-fuzz (cargo install cargo-fuzz --locked) and a nightly toolchain; with only stable
# installed, RUSTC_BOOTSTRAP=1 lets stable rustc accept the nightly-only sanitizer flags.
# New corpus entries land in fuzz/corpus/<target>/ (keep the small seeds committed, not the growth);
# crashes land in fuzz/artifacts/<target>/ and make the script exit non-zero.
set -euo pipefail
cd "$(dirname "$0")/.."

# Every target is a `[[bin]]` of fuzz/Cargo.toml: the one list.
all_targets() {
    awk '/^\[\[bin\]\]/ { bin = 1; next } bin && /^name = / { gsub(/"/, "", $3); print $3; bin = 0 }' fuzz/Cargo.toml
}
if [ "${1:-}" = "--list" ]; then
    all_targets
    exit 0
fi

seconds="${1:-60}"
shift || true
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
    mapfile -t targets < <(all_targets)
fi

# FUZZ_MAX_RUNS=N stops a target after N executions even when time is left (record.sh sets it
# to the long-run bar of 10 million).
max_runs=()
if [ -n "${FUZZ_MAX_RUNS:-}" ]; then
    max_runs=(-runs="$FUZZ_MAX_RUNS")
fi

# FUZZ_TIMEOUT=SECONDS: how long one input may run before it is reported as hung (default 10).
# libFuzzer measures wall time, so a fuzzer starved by other work on a shared machine (or
# stopped with SIGSTOP) reports a hang that is not one; record.sh allows 60.
timeout="${FUZZ_TIMEOUT:-10}"

toolchain=()
if rustup toolchain list 2>/dev/null | grep -q '^nightly'; then
    toolchain=(+nightly)
else
    export RUSTC_BOOTSTRAP=1
fi

status=0
for t in "${targets[@]}"; do
    echo "=== fuzz target $t for ${seconds}s"
    # A private copy of the corpus keeps generated inputs out of the committed seeds.
    work="fuzz/target/corpus-work/$t"
    mkdir -p "$work" "fuzz/artifacts/$t"
    # The exit status counts: a target that does not build (or a fuzzer that stops early) fails
    # the run as a crash does.
    set +e
    cargo "${toolchain[@]}" fuzz run --fuzz-dir fuzz "$t" "$work" "fuzz/corpus/$t" -- \
        -max_total_time="$seconds" "${max_runs[@]}" -timeout="$timeout" -rss_limit_mb=2048 -max_len=65536 \
        -print_final_stats=1 -artifact_prefix="fuzz/artifacts/$t/" >"fuzz/target/$t.log" 2>&1
    rc=$?
    set -e
    grep -E '^Done [0-9]+ runs|stat::number_of_executed_units|stat::peak_rss|ERROR: (libFuzzer|AddressSanitizer)|panicked|SUMMARY: ' "fuzz/target/$t.log" || true
    if grep -qE 'ERROR: (libFuzzer|AddressSanitizer)|panicked|SUMMARY: ' "fuzz/target/$t.log"; then
        echo "!!! $t found a crash; see fuzz/artifacts/$t/ and fuzz/target/$t.log"
        status=1
    elif [ "$rc" -ne 0 ]; then
        echo "!!! $t failed (exit $rc) without a crash report; see fuzz/target/$t.log"
        tail -20 "fuzz/target/$t.log"
        status=1
    fi
done
exit $status
