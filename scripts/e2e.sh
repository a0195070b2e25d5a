#!/usr/bin/env bash
# Runs the end-to-end tests against the real Claude Code CLI, installing the
# pinned CLI first when it is missing. Extra arguments go to go test
# (e.g. scripts/e2e.sh -run TestManualCompaction -v).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -z "${CARRYOVER_CLAUDE:-}" ]; then
  scripts/install-claude-code.sh
fi
go test -count=1 "$@" ./e2e/
