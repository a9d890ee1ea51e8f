#!/usr/bin/env bash
# Installs xmllint (Debian's libxml2-utils) for the JUnit schema tests.
# Idempotent: does nothing when xmllint is already on PATH. Used by .ci/run
# and, on first need, by the tests themselves, so `cargo test --locked` works
# on a fresh machine.
set -euo pipefail
if command -v xmllint >/dev/null 2>&1; then
  exit 0
fi
if ! command -v apt-get >/dev/null 2>&1; then
  echo "xmllint is missing and apt-get is not available: install libxml2-utils (or your system's xmllint) by hand" >&2
  exit 1
fi
if [ "$(id -u)" -eq 0 ]; then apt_get=(apt-get); else apt_get=(sudo -n apt-get); fi
echo "installing libxml2-utils (xmllint) for the JUnit schema tests" >&2
timeout 600 "${apt_get[@]}" update -qq
DEBIAN_FRONTEND=noninteractive timeout 600 "${apt_get[@]}" install -y -qq libxml2-utils >/dev/null
command -v xmllint >/dev/null
