#!/usr/bin/env bash
# Browser tests drive Debian's chromium (Playwright cannot download its own browser here).
set -euo pipefail
if command -v chromium >/dev/null 2>&1; then exit 0; fi
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "Installing Debian's chromium for the browser tests..."
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium >/dev/null
else
  echo "The browser tests need Debian's chromium: sudo apt-get install --no-install-recommends chromium" >&2
  exit 1
fi
