#!/usr/bin/env bash
# Build fully static, stripped release binaries for x86_64 and arm64 (musl) on an x86_64 Debian
# machine, without Docker, and check that they are static.
#
#   cross/build.sh            # builds both into out/
#   cross/build.sh --deps     # first installs the Debian packages and rustup targets it needs
#
# Outputs: out/edgesched-linux-amd64, out/edgesched-linux-arm64 (and prints their sizes).
set -euo pipefail
cd "$(dirname "$0")/.."

if [ "${1:-}" = "--deps" ]; then
  sudo_cmd=""; [ "$(id -u)" -eq 0 ] || sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq
  $sudo_cmd apt-get install -y -qq --no-install-recommends musl-tools gcc-aarch64-linux-gnu libc6-dev-arm64-cross binutils-aarch64-linux-gnu qemu-user-static file binutils >/dev/null
  rustup target add x86_64-unknown-linux-musl aarch64-unknown-linux-musl
fi

cargo build --release --locked --target x86_64-unknown-linux-musl --target aarch64-unknown-linux-musl

mkdir -p out
cp target/x86_64-unknown-linux-musl/release/edgesched out/edgesched-linux-amd64
cp target/aarch64-unknown-linux-musl/release/edgesched out/edgesched-linux-arm64

status=0
for b in out/edgesched-linux-amd64 out/edgesched-linux-arm64; do
  desc="$(file -b "$b")"
  if readelf -lW "$b" | grep -q "program interpreter"; then
    echo "NOT STATIC (has an interpreter): $b" >&2; status=1
  fi
  if readelf -dW "$b" 2>/dev/null | grep -q "(NEEDED)"; then
    echo "NOT STATIC (needs shared libraries): $b" >&2; status=1
  fi
  size=$(stat -c %s "$b")
  printf '%-28s %8d bytes (%s MiB)  %s\n' "$b" "$size" "$(awk "BEGIN{printf \"%.2f\", $size/1048576}")" "$desc"
  if [ "$size" -gt $((8 * 1024 * 1024)) ]; then
    echo "over the 8 MiB budget: $b" >&2; status=1
  fi
  # The size BENCHMARKS.md states comes from benches/results.json ("binaries"): it must stay
  # within 5 % of what this tree builds, so the documents cannot go stale unnoticed.
  name=$(basename "$b")
  recorded=$(grep -o "\"$name\": [0-9]*" benches/results.json | grep -o '[0-9]*$' || true)
  if [ -z "$recorded" ]; then
    echo "benches/results.json records no size for $name (\"binaries\")" >&2; status=1
  elif [ $(( (size > recorded ? size - recorded : recorded - size) * 100 )) -gt $(( recorded * 5 )) ]; then
    echo "$name is $size bytes but benches/results.json records $recorded: update \"binaries\" there and run" >&2
    echo "  EDGESCHED_BLESS=1 cargo test --test docs   (regenerates BENCHMARKS.md's figures)" >&2; status=1
  fi
done
exit $status
