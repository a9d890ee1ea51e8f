#!/usr/bin/env bash
# Installs the validators tests/install.rs runs over the GitHub workflows and
# action.yml, pinned in tests/support/validators/:
#   .venv/bin/actionlint                    actionlint (PyPI, requirements.txt)
#   .venv/bin/kubernetes-validate           the Kubernetes manifest of docs/fleets.md
#                                           (PyPI, requirements.txt)
#   node_modules/.bin/action-validator      action.yml against the SchemaStore
#                                           action schema (npm, package-lock.json)
#   Debian's shellcheck (on PATH)           for actionlint's checks of
#                                           `run:` scripts
# Idempotent: stamped with a digest of the pin files, skipped while they are
# unchanged. Used by .ci/run and, on first need, by the tests themselves, so
# `cargo test --locked` works on a fresh machine. Needs Python >= 3.8 with
# venv, npm, and PyPI, npm and (for shellcheck) apt-get.
set -euo pipefail

here="$(cd "$(dirname "$0")/validators" && pwd)"
limit="${A2A_VALIDATORS_SETUP_TIMEOUT:-600}"
fail() {
    echo "install-actionlint: FAILED: $*" >&2
    echo "install-actionlint: fix the cause, then run: bash tests/support/install-actionlint.sh" >&2
    exit 1
}
bounded() { timeout --kill-after=10 "$limit" "$@"; }

# One install at a time (parallel test threads and .ci/run may all call this).
exec 9>"$here/.lock"
flock -w $((2 * limit + 60)) 9 || fail "another install held $here/.lock for too long"

if ! command -v shellcheck >/dev/null 2>&1; then
    command -v apt-get >/dev/null 2>&1 ||
        fail "shellcheck is missing and apt-get is not available: install shellcheck by hand"
    if [ "$(id -u)" -eq 0 ]; then apt_get=(apt-get); else apt_get=(sudo -n apt-get); fi
    echo "install-actionlint: installing shellcheck (Debian) for actionlint's run: checks" >&2
    bounded "${apt_get[@]}" update -qq || fail "apt-get update"
    DEBIAN_FRONTEND=noninteractive bounded "${apt_get[@]}" install -y -qq shellcheck >/dev/null ||
        fail "apt-get install shellcheck"
fi

stamp="$here/.installed"
want="$(cat "$here/requirements.txt" "$here/package-lock.json" | sha256sum | cut -d' ' -f1)"
if [[ -f "$stamp" && "$(cat "$stamp")" == "$want" && -x "$here/.venv/bin/actionlint" &&
    -x "$here/.venv/bin/kubernetes-validate" && -x "$here/node_modules/.bin/action-validator" ]]; then
    exit 0
fi
rm -f "$stamp"

echo "install-actionlint: installing actionlint into $here/.venv" >&2
rm -rf "$here/.venv"
python3 -m venv "$here/.venv" || fail "python3 -m venv $here/.venv"
bounded "$here/.venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-input \
    --only-binary :all: -r "$here/requirements.txt" ||
    { rm -rf "$here/.venv"; fail "pip install -r $here/requirements.txt"; }
"$here/.venv/bin/actionlint" --version >/dev/null || fail "the installed actionlint does not run"
"$here/.venv/bin/kubernetes-validate" --version >/dev/null ||
    fail "the installed kubernetes-validate does not run"

echo "install-actionlint: installing @action-validator/cli into $here/node_modules" >&2
(cd "$here" && bounded npm ci --no-audit --no-fund --loglevel=error) ||
    fail "npm ci in $here"
"$here/node_modules/.bin/action-validator" --help >/dev/null || fail "the installed action-validator does not run"

echo "$want" >"$stamp"
