#!/usr/bin/env bash
# Prints the bin directory of a PostgreSQL server (initdb, pg_ctl, postgres).
# Installs Debian's `postgresql` package when it is missing and we are root (as CI is);
# otherwise says how to install it and exits 1.
set -euo pipefail

find_bin() {
  local dir
  for dir in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V -r); do
    if [ -x "$dir/initdb" ] && [ -x "$dir/pg_ctl" ]; then echo "$dir"; return 0; fi
  done
  if command -v pg_ctl >/dev/null 2>&1 && command -v initdb >/dev/null 2>&1; then
    dirname "$(command -v pg_ctl)"; return 0
  fi
  return 1
}

if find_bin; then exit 0; fi
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "Installing Debian's postgresql for the PostgreSQL test run..." >&2
  apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends postgresql >&2
  find_bin && exit 0
fi
echo "PostgreSQL server binaries not found: sudo apt-get install --no-install-recommends postgresql" >&2
exit 1
