#!/usr/bin/env bash
# Installs Debian's chromium (and chromium-driver) for the dashboard and
# `check --html` tests, which load the pages in a real headless browser.
# Idempotent: does nothing when chromium is already on PATH. Used by .ci/run
# and, on first need, by the tests themselves, so `cargo test --locked` works
# on a fresh machine.
set -euo pipefail
if command -v chromium >/dev/null 2>&1; then
  exit 0
fi
if ! command -v apt-get >/dev/null 2>&1; then
  echo "chromium is missing and apt-get is not available: install chromium by hand" >&2
  exit 1
fi
if [ "$(id -u)" -eq 0 ]; then apt_get=(apt-get); else apt_get=(sudo -n apt-get); fi
echo "installing chromium and chromium-driver for the dashboard tests" >&2
timeout 600 "${apt_get[@]}" update -qq
DEBIAN_FRONTEND=noninteractive timeout 1200 "${apt_get[@]}" install -y -qq --no-install-recommends \
  chromium chromium-driver fonts-dejavu-core >/dev/null
command -v chromium >/dev/null
