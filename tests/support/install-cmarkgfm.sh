#!/usr/bin/env bash
# Installs cmarkgfm (GitHub's cmark-gfm renderer, PyPI, pinned in
# tests/support/markdown/requirements.txt) into tests/support/markdown/.venv
# for tests/integration/hostile/inert.rs, which renders the Markdown report the way a CI step
# summary is rendered. Idempotent: stamped with a digest of the pin file.
# Used by .ci/run and, on first need, by the tests themselves, so
# `cargo test --locked` works on a fresh machine. Needs Python >= 3.9 with
# venv, and PyPI.
set -euo pipefail

here="$(cd "$(dirname "$0")/markdown" && pwd)"
limit="${A2A_VALIDATORS_SETUP_TIMEOUT:-600}"
fail() {
    echo "install-cmarkgfm: FAILED: $*" >&2
    echo "install-cmarkgfm: fix the cause, then run: bash tests/support/install-cmarkgfm.sh" >&2
    exit 1
}

# One install at a time (parallel test threads and .ci/run may all call this).
exec 9>"$here/.lock"
flock -w $((limit + 60)) 9 || fail "another install held $here/.lock for too long"

stamp="$here/.installed"
want="$(sha256sum "$here/requirements.txt" | cut -d' ' -f1)"
if [[ -f "$stamp" && "$(cat "$stamp")" == "$want" && -x "$here/.venv/bin/python" ]]; then
    exit 0
fi
rm -f "$stamp"

echo "install-cmarkgfm: installing cmarkgfm into $here/.venv" >&2
rm -rf "$here/.venv"
python3 -m venv "$here/.venv" || fail "python3 -m venv $here/.venv"
timeout --kill-after=10 "$limit" "$here/.venv/bin/python" -m pip install --quiet \
    --disable-pip-version-check --no-input --only-binary :all: -r "$here/requirements.txt" ||
    { rm -rf "$here/.venv"; fail "pip install -r $here/requirements.txt"; }
echo '# x' | "$here/.venv/bin/python" "$here/render.py" | grep -q '<h1>x</h1>' ||
    fail "the installed cmarkgfm does not render"

echo "$want" >"$stamp"
