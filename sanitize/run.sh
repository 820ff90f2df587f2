#!/usr/bin/env bash
# Runs the allocator's tests under Miri, AddressSanitizer and ThreadSanitizer (nightly toolchain
# with the `miri` and `rust-src` components: `rustup toolchain install nightly --component miri,rust-src`).
# ThreadSanitizer needs the standard library built with it (`-Zbuild-std`), or it reports races
# inside std that are not there.
set -euo pipefail
cd "$(dirname "$0")"
host="$(rustc +nightly -vV | sed -n 's/^host: //p')"
echo "== Miri"
MIRIFLAGS="${MIRIFLAGS:--Zmiri-strict-provenance}" cargo +nightly miri test
echo "== AddressSanitizer"
RUSTFLAGS="-Zsanitizer=address" RUSTDOCFLAGS="-Zsanitizer=address" \
  cargo +nightly test --target "$host" --target-dir target/asan
echo "== ThreadSanitizer"
RUSTFLAGS="-Zsanitizer=thread" RUSTDOCFLAGS="-Zsanitizer=thread" \
  cargo +nightly test -Zbuild-std --target "$host" --target-dir target/tsan
