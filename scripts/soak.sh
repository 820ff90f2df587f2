#!/usr/bin/env bash
# Soak run: continuous pod churn over 500 nodes against the real edgesched binary, reporting
# scheduler RSS start/quarter/end/max, binds per second and errors (see RELIABILITY.md).
#
#   scripts/soak.sh            # 30 minutes, release build (what RELIABILITY.md's numbers use)
#   scripts/soak.sh 120 debug  # 2 minutes, debug build (no extra compile if tests are built)
#
# The release profile uses LTO: the first build takes several minutes on a small machine.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-1800}"
profile="${2:-release}"
flags=()
[ "$profile" = release ] && flags=(--release)
export EDGESCHED_SOAK_SECONDS="$seconds"
exec cargo test --locked "${flags[@]}" --test soak -- --ignored --nocapture
