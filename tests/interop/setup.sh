#!/usr/bin/env bash
# Installs the pinned official A2A SDKs for the interop tests (tests/integration/interop.rs):
#   tests/interop/python/.venv          a2a-sdk and its server deps (requirements.txt)
#   tests/interop/js/node_modules       @a2a-js/sdk, express and the gRPC peers
#                                       (@grpc/grpc-js, @bufbuild/protobuf) (package-lock.json)
#
# Idempotent: each install is stamped with a digest of its pin file and is
# skipped while the pins are unchanged. Bounded: each network step gets
# A2A_INTEROP_SETUP_TIMEOUT seconds (default 600). Needs Python >= 3.10 with
# venv, Node >= 20 and npm, and the package registries.
#
#   bash tests/interop/setup.sh            # install what is missing or stale
#   bash tests/interop/setup.sh --force    # reinstall both
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
py_dir="$here/python"
js_dir="$here/js"
venv="$py_dir/.venv"
limit="${A2A_INTEROP_SETUP_TIMEOUT:-600}"
force=0
for arg in "$@"; do
    case "$arg" in
        --force) force=1 ;;
        -h | --help) sed -n '2,13p' "$0"; exit 0 ;;
        *) echo "setup.sh: unknown argument \`$arg\` (try --help)" >&2; exit 2 ;;
    esac
done

say() { echo "interop setup: $*"; }
fail() {
    echo "interop setup: FAILED: $*" >&2
    echo "interop setup: fix the cause, then run: bash tests/interop/setup.sh" >&2
    exit 1
}
digest() { sha256sum "$1" | cut -d' ' -f1; }
bounded() { timeout --kill-after=10 "$limit" "$@"; }

# One setup at a time (the test binary and .ci/run may both call this).
exec 9>"$here/.setup.lock"
if ! flock -w $((2 * limit + 60)) 9; then
    fail "another setup held $here/.setup.lock for too long"
fi

# --- Python: a2a-sdk in a venv ----------------------------------------------
py_stamp="$venv/.a2a-conform-pins"
py_want="$(digest "$py_dir/requirements.txt")"
if [[ $force == 0 && -x "$venv/bin/python" && -f "$py_stamp" && "$(cat "$py_stamp")" == "$py_want" ]]; then
    say "python: $venv is up to date with requirements.txt"
else
    python=""
    for candidate in "${A2A_INTEROP_PYTHON:-}" python3.11 python3.12 python3.13 python3; do
        [[ -n "$candidate" ]] || continue
        if command -v "$candidate" >/dev/null 2>&1 &&
            "$candidate" -c 'import sys, venv; sys.exit(sys.version_info < (3, 10))' 2>/dev/null; then
            python="$candidate"
            break
        fi
    done
    [[ -n "$python" ]] || fail "no Python >= 3.10 with the venv module found (set A2A_INTEROP_PYTHON)"
    say "python: creating $venv with $("$python" --version 2>&1)"
    rm -rf "$venv"
    "$python" -m venv "$venv" || fail "$python -m venv $venv"
    say "python: installing the pins of requirements.txt (at most ${limit}s)"
    started=$SECONDS
    bounded "$venv/bin/python" -m pip install --quiet --disable-pip-version-check \
        --no-input --no-deps -r "$py_dir/requirements.txt" ||
        { rm -rf "$venv"; fail "pip install -r $py_dir/requirements.txt (timed out after ${limit}s, or the registry refused)"; }
    "$venv/bin/python" -m pip check --disable-pip-version-check ||
        { rm -rf "$venv"; fail "the pins in requirements.txt are incomplete or inconsistent (pip check)"; }
    "$venv/bin/python" -c 'import a2a.server.routes, uvicorn, sse_starlette' ||
        { rm -rf "$venv"; fail "the venv cannot import the A2A server modules"; }
    echo "$py_want" >"$py_stamp"
    say "python: installed a2a-sdk $("$venv/bin/python" -c 'from importlib.metadata import version; print(version("a2a-sdk"))') in $((SECONDS - started))s"
fi

# --- JavaScript: @a2a-js/sdk in node_modules -----------------------------------
js_stamp="$js_dir/node_modules/.a2a-conform-pins"
js_want="$(digest "$js_dir/package-lock.json")"
if [[ $force == 0 && -f "$js_stamp" && "$(cat "$js_stamp")" == "$js_want" ]]; then
    say "js: $js_dir/node_modules is up to date with package-lock.json"
else
    command -v node >/dev/null 2>&1 || fail "node is not installed (Node >= 20 is needed)"
    command -v npm >/dev/null 2>&1 || fail "npm is not installed"
    node -e 'process.exit(Number(process.versions.node.split(".")[0]) >= 20 ? 0 : 1)' ||
        fail "node $(node --version) is too old (Node >= 20 is needed)"
    say "js: npm ci in $js_dir with node $(node --version) (at most ${limit}s)"
    started=$SECONDS
    (cd "$js_dir" && bounded npm ci --no-audit --no-fund --loglevel=error) ||
        { rm -rf "$js_dir/node_modules"; fail "npm ci in $js_dir (timed out after ${limit}s, or the registry refused)"; }
    echo "$js_want" >"$js_stamp"
    say "js: installed @a2a-js/sdk $(cd "$js_dir" && node -p 'require("./node_modules/@a2a-js/sdk/package.json").version') in $((SECONDS - started))s"
fi

say "ready"
