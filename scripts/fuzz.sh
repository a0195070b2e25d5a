#!/usr/bin/env bash
# Runs every fuzz target, one after another with one worker, for the given
# time each (default 10m): scripts/fuzz.sh [DURATION] [TARGET_REGEXP].
# The fuzzer keeps new interesting inputs in the Go build cache; they are
# copied (those under 64 KB) to each package's testdata/fuzz/FuzzX/, which
# plain `go test` then runs as seeds. Exits non-zero on the first
# crasher (go test prints how to reproduce it).
set -euo pipefail
cd "$(dirname "$0")/.."
time=${1:-10m}
only=${2:-.}
targets=(
  "./hook FuzzDecode"
  "./transcript FuzzDecode"
  "./transcript FuzzReaderResume"
  "./sqlite FuzzQueryTerms"
  "./redact FuzzRedact"
  "./redact FuzzRedactCost"
  "./claudesettings FuzzInstallUninstall"
)
for t in "${targets[@]}"; do
  set -- $t
  pkg=$1 name=$2
  if ! [[ "$pkg $name" =~ $only ]]; then
    continue
  fi
  printf '\n== %s %s (%s)\n' "$pkg" "$name" "$time"
  go test "$pkg" -run '^$' -fuzz "^${name}\$" -fuzztime "$time" -parallel 1
  cache="$(go env GOCACHE)/fuzz/$(go list "$pkg")/$name"
  if [ -d "$cache" ]; then
    mkdir -p "$pkg/testdata/fuzz/$name"
    find "$cache" -type f -size -64k -exec cp -n {} "$pkg/testdata/fuzz/$name/" \;
    echo "corpus: $(ls "$pkg/testdata/fuzz/$name" | wc -l) files in $pkg/testdata/fuzz/$name"
  fi
done
