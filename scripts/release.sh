#!/usr/bin/env bash
# Cross-builds static carryover binaries for every supported platform into
# dist/ (or $1) with a SHA256SUMS file. The builds are reproducible: no cgo,
# -trimpath, no build ID, and the version comes from the argument or git, so
# two runs of one commit give byte-identical binaries.
#
#   scripts/release.sh [OUTDIR]        VERSION=v0.2.0 scripts/release.sh
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-dist}
version=${VERSION:-$(git describe --tags --always --dirty 2>/dev/null || echo dev)}
platforms=${PLATFORMS:-"linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64 windows/arm64"}

# Only what an earlier run wrote goes: OUTDIR may be any directory.
mkdir -p "$out"
rm -f "$out"/carryover_* "$out/SHA256SUMS"
for p in $platforms; do
  goos=${p%/*} goarch=${p#*/}
  ext=
  [ "$goos" = windows ] && ext=.exe
  bin="carryover_${version}_${goos}_${goarch}${ext}"
  echo "building $bin" >&2
  CGO_ENABLED=0 GOOS=$goos GOARCH=$goarch GOFLAGS= \
    go build -trimpath -buildvcs=false \
      -ldflags "-s -w -buildid= -X main.version=$version" \
      -o "$out/$bin" ./cmd/carryover
done
(
  cd "$out"
  if command -v sha256sum >/dev/null; then
    sha256sum carryover_* >SHA256SUMS
  else
    shasum -a 256 carryover_* >SHA256SUMS
  fi
)
echo "wrote $out/ ($(ls "$out" | wc -l | tr -d ' ') files)" >&2
