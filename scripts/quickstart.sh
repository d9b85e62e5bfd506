#!/usr/bin/env bash
# Quickstart: install pyptx-ir + pyptx-parser into ./.venv and parse the bundled PTX example.
#
#   ./scripts/quickstart.sh [FILE.ptx]
#
# Needs only Python >= 3.10 (set PYTHON to pick the interpreter; default python3).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PYTHON="${PYTHON:-python3}"
VENV="$ROOT/.venv"
PTX_FILE="${1:-$ROOT/examples/ptx/vector_add.ptx}"

if ! "$PYTHON" -c 'import sys; sys.exit(sys.version_info < (3, 10))' 2>/dev/null; then
    echo "quickstart: pyptx needs Python >= 3.10; '$PYTHON' is missing or older." >&2
    echo "quickstart: install Python 3.10+ or run with PYTHON=/path/to/python3.x" >&2
    exit 1
fi

if [[ ! -x "$VENV/bin/python" ]]; then
    echo "quickstart: creating $VENV"
    if ! "$PYTHON" -m venv "$VENV"; then
        rm -rf "$VENV"
        echo "quickstart: '$PYTHON -m venv' failed; on Debian/Ubuntu install the" \
            "python3-venv package (apt install python3-venv) and rerun." >&2
        exit 1
    fi
fi

echo "quickstart: installing pyptx-ir and pyptx-parser into $VENV"
# Both in one pip call, so pyptx-parser's requirement on pyptx-ir is met by the local copy.
"$VENV/bin/python" -m pip install --quiet --disable-pip-version-check \
    "$ROOT/packages/pyptx-ir" "$ROOT/packages/pyptx-parser"

echo "quickstart: python -m pyptx.parser ${PTX_FILE#"$ROOT"/}"
"$VENV/bin/python" -m pyptx.parser "$PTX_FILE"
