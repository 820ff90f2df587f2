#!/usr/bin/env bash
# Run fuzz targets for SECONDS each (through fuzz/run.sh, one at a time) and write their figures
# into SECURITY.md's executions table, between its generated markers:
#   fuzz/record.sh 3600               # every target for an hour: the recorded run
#   fuzz/record.sh 600 pod_decoder    # one target; the other rows stay as they were
# A row gives the fuzzing time and executions libFuzzer reports, executions per second, peak
# RSS, the date, the machine's load average before and after (fuzzing shares the machine) and
# whether the target has had a long run (at least 10 million executions or an hour). Every
# target of `fuzz/run.sh --list` has a row; one never recorded says so. Rows of targets that
# no longer exist are dropped. A crash is recorded in its row and makes the script exit non-zero.
# A target stops early once it reaches 10 million executions (the long-run bar), and an input is
# reported as hung after 60 s rather than 10 (the machine is shared; libFuzzer counts wall time). The table is
# rewritten after each target, under a lock, so several record.sh runs (one per CPU, with
# different targets) can share the machine and the document, and an interrupted run keeps the
# rows it finished.
set -euo pipefail
cd "$(dirname "$0")/.."

seconds="${1:?usage: fuzz/record.sh SECONDS [targets]}"
shift
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
    mapfile -t targets < <(fuzz/run.sh --list)
fi

doc=SECURITY.md
begin='<!-- fuzz-executions:begin (written by fuzz/record.sh) -->'
end='<!-- fuzz-executions:end -->'
grep -qxF "$begin" "$doc" && grep -qxF "$end" "$doc" || { echo "$doc has no executions table markers" >&2; exit 1; }
mkdir -p fuzz/target

# 12345678 -> "12 345 678", as the rest of the documents write numbers.
group() { sed ':a;s/\B[0-9]\{3\}\>/ &/;ta' <<<"$1"; }
# The value of libFuzzer's `stat::NAME:` line in LOG (empty when absent).
stat() { sed -n "s/^stat::$1: *\([0-9]*\).*/\1/p" "$2" | tail -1; }

# Merge ROW (the new row of TARGET) into the document's table, holding the lock so that
# parallel runs do not drop each other's rows: the current rows are read at the moment of writing.
write_row() {
    local t="$1" row="$2"
    (
        flock 9
        # The current rows, by target: one file per row.
        rows=fuzz/target/record-rows.$$
        rm -rf "$rows" && mkdir -p "$rows"
        awk -v begin="$begin" -v end="$end" '$0 == begin { on = 1; next } $0 == end { on = 0 } on' "$doc" | { grep '^| `' || true; } | while IFS= read -r line; do
            name=$(sed 's/^| `\([^`]*\)`.*/\1/' <<<"$line")
            printf '%s\n' "$line" >"$rows/$name"
        done
        printf '%s\n' "$row" >"$rows/$t"
        # The table: every target in run.sh's order, recorded or not.
        table=fuzz/target/record-table.$$.md
        {
            printf '%s\n' "$begin"
            echo "| target | time | executions | executions/s | peak RSS | date (UTC) | load average (before → after) | ≥ 10 M executions or 1 h | result |"
            echo "|---|---|---|---|---|---|---|---|---|"
            fuzz/run.sh --list | while IFS= read -r t; do
                if [ -f "$rows/$t" ]; then cat "$rows/$t"; else echo "| \`$t\` | — | — | — | — | — | — | not yet recorded | — |"; fi
            done
            printf '%s\n' "$end"
        } >"$table"
        awk -v begin="$begin" -v end="$end" -v table="$table" '
            $0 == begin { while ((getline line < table) > 0) print line; skip = 1; next }
            $0 == end { skip = 0; next }
            !skip { print }
        ' "$doc" >"$doc.new"
        mv "$doc.new" "$doc"
        rm -rf "$rows" "$table"
    ) 9>fuzz/target/record.lock
}

status=0
for t in "${targets[@]}"; do
    load_before=$(cut -d' ' -f1 /proc/loadavg)
    started=$(date +%s)
    if FUZZ_MAX_RUNS=10000000 FUZZ_TIMEOUT=60 fuzz/run.sh "$seconds" "$t"; then result="no crash"; else result="**crash or failure**: fuzz/target/$t.log"; status=1; fi
    load_after=$(cut -d' ' -f1 /proc/loadavg)
    log="fuzz/target/$t.log"
    runs=$(stat number_of_executed_units "$log")
    rate=$(stat average_exec_per_sec "$log")
    rss=$(stat peak_rss_mb "$log")
    took=$(sed -n 's/^Done [0-9]* runs in \([0-9]*\) second.*/\1/p' "$log" | tail -1)
    # A run that ends on a crash prints no "Done" line: its own wall time, then.
    took="${took:-$(($(date +%s) - started))}"
    if [ -z "$runs" ]; then
        row="| \`$t\` | — | — | — | — | $(date -u +%F) | — | not yet | did not run: $log |"
    else
        long="not yet"
        if [ "$runs" -ge 10000000 ] || [ "$took" -ge 3600 ]; then long="yes"; fi
        row="| \`$t\` | $took s | $(group "$runs") | $(group "${rate:-0}") | ${rss:-?} MB | $(date -u +%F) | $load_before → $load_after on $(nproc) CPUs | $long | $result |"
    fi
    write_row "$t" "$row"
done

echo "wrote ${#targets[@]} row(s) of $doc's executions table"
exit $status
