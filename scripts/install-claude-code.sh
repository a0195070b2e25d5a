#!/usr/bin/env bash
# Installs the pinned Claude Code CLI that the end-to-end tests in e2e/ drive,
# into .cache/claude-code/ at the repository root (gitignored). Idempotent: does
# nothing when the pinned version is already there.
# Usage: scripts/install-claude-code.sh   (override the version with CLAUDE_CODE_VERSION)
set -euo pipefail
cd "$(dirname "$0")/.."

version="${CLAUDE_CODE_VERSION:-2.1.197}"
dir=.cache/claude-code
bin="$dir/node_modules/.bin/claude"

if [ -x "$bin" ] && [ "$("$bin" --version </dev/null 2>/dev/null | cut -d' ' -f1)" = "$version" ]; then
  echo "claude-code $version already installed: $bin"
  exit 0
fi

mkdir -p "$dir"
# A private package.json keeps npm from walking up into anything else.
[ -f "$dir/package.json" ] || printf '{"name":"carryover-e2e-claude-code","private":true}\n' >"$dir/package.json"
npm install --prefix "$dir" --no-audit --no-fund --no-save --loglevel=error \
  "@anthropic-ai/claude-code@$version"
echo "installed claude-code $("$bin" --version </dev/null): $bin"
