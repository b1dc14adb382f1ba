#!/bin/sh
# Prints the code-mode patch to QuickJS: the vendored rquickjs-sys against the
# pristine copy of the same version in the local cargo registry (run
# `cargo fetch` first if it is missing).
set -eu
cd "$(dirname "$0")/.."
version=$(sed -n 's/^version = "\(.*\)"/\1/p' vendor/rquickjs-sys/Cargo.toml | head -n 1)
pristine=$(ls -d "${CARGO_HOME:-$HOME/.cargo}"/registry/src/*/rquickjs-sys-"$version" 2>/dev/null | head -n 1)
if [ -z "$pristine" ]; then
  echo "rquickjs-sys $version is not in the cargo registry; run: cargo fetch" >&2
  exit 1
fi
status=0
for file in build.rs quickjs/quickjs.c quickjs/quickjs.h quickjs/cutils.h quickjs/libregexp.c quickjs/libunicode.c; do
  diff -u --label "a/$file" --label "b/$file" "$pristine/$file" "vendor/rquickjs-sys/$file" || status=0
done
exit $status
