#!/usr/bin/env bash
# Runs every fuzz target of the module (every func FuzzX in a _test.go
# file), one after another with one worker, the given total time split
# evenly between them (default 70m, some 4 minutes each):
# scripts/fuzz.sh [TOTAL] [TARGET_REGEXP]. TOTAL is whole seconds, minutes
# or hours (90s, 70m, 2h); TARGET_REGEXP matches "PKG FuzzX" and narrows
# the run (the total is then split among the targets it matches).
# The fuzzer keeps new interesting inputs in the Go build cache; they are
# copied (those under 64 KB) to each package's testdata/fuzz/FuzzX/, which
# plain `go test` then runs as seeds. Exits non-zero on the first
# crasher (go test prints how to reproduce it).
set -euo pipefail
cd "$(dirname "$0")/.."
total=${1:-70m}
only=${2:-.}
case $total in
  *h) secs=$(( ${total%h} * 3600 )) ;;
  *m) secs=$(( ${total%m} * 60 )) ;;
  *s) secs=${total%s} ;;
  *) echo "fuzz.sh: TOTAL $total: want whole seconds, minutes or hours (90s, 70m, 2h)" >&2; exit 2 ;;
esac
# "./pkg FuzzX" for every target, found rather than listed so that a new
# one is not left out.
mapfile -t all < <(grep -rn --include='*_test.go' --exclude-dir=testdata --exclude-dir='.[!.]*' --exclude-dir='_*' -E '^func Fuzz[A-Za-z0-9_]*\(' . |
  sed -E 's#^\./(.*/)?[^/]*_test\.go:[0-9]+:func (Fuzz[A-Za-z0-9_]*)\(.*#./\1 \2#; s#/ # #' | sort)
targets=()
for t in "${all[@]}"; do
  if [[ "$t" =~ $only ]]; then
    targets+=("$t")
  fi
done
if [ ${#targets[@]} -eq 0 ]; then
  echo "fuzz.sh: no fuzz target matches $only" >&2
  exit 2
fi
each=$(( secs / ${#targets[@]} ))
if [ "$each" -lt 1 ]; then
  each=1
fi
echo "${#targets[@]} fuzz targets, ${each}s each"
for t in "${targets[@]}"; do
  set -- $t
  pkg=$1 name=$2
  printf '\n== %s %s (%ss)\n' "$pkg" "$name" "$each"
  go test "$pkg" -run '^$' -fuzz "^${name}\$" -fuzztime "${each}s" -parallel 1
  cache="$(go env GOCACHE)/fuzz/$(go list "$pkg")/$name"
  if [ -d "$cache" ]; then
    mkdir -p "$pkg/testdata/fuzz/$name"
    find "$cache" -type f -size -64k -exec cp -n {} "$pkg/testdata/fuzz/$name/" \;
    echo "corpus: $(ls "$pkg/testdata/fuzz/$name" | wc -l) files in $pkg/testdata/fuzz/$name"
  fi
done
