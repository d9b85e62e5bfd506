#!/usr/bin/env bash
# Quickstart: install pyptx into ./.venv, trace the bundled example kernel, print its PTX and
# assemble it with ptxas, run it through pyptx.runtime (on the GPU where there is one, in the
# CPU emulator otherwise) and check its result against numpy, then parse and re-emit the
# bundled PTX file, and transpile that file to pyptx Python and check that the Python re-emits
# it byte for byte.
#
#   ./scripts/quickstart.sh [KERNEL.py [FILE.ptx]]
#
# Needs only Python >= 3.10 (set PYTHON to pick the interpreter; default python3).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PYTHON="${PYTHON:-python3}"
VENV="$ROOT/.venv"
KERNEL_FILE="${1:-$ROOT/examples/dsl/vector_add.py}"
PTX_FILE="${2:-$ROOT/examples/ptx/vector_add.ptx}"

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

echo "quickstart: installing pyptx (ir, parser, dsl, emu, runtime) and ptxas into $VENV"
# The five packages in one pip call, so their requirements on each other are met by the local
# copies; ptxas comes from NVIDIA's nvidia-cuda-nvcc wheel, pinned to the release the tests use.
"$VENV/bin/python" -m pip install --quiet --disable-pip-version-check \
    "$ROOT/packages/pyptx-ir" "$ROOT/packages/pyptx-parser" "$ROOT/packages/pyptx-dsl" \
    "$ROOT/packages/pyptx-emu" "$ROOT/packages/pyptx-runtime" "nvidia-cuda-nvcc==13.5.*"

echo "quickstart: pyptx ptx ${KERNEL_FILE#"$ROOT"/} --check"
"$VENV/bin/pyptx" ptx "$KERNEL_FILE" --check

echo
echo "quickstart: python examples/run_vector_add.py"
"$VENV/bin/python" "$ROOT/examples/run_vector_add.py"

echo
echo "quickstart: python -m pyptx.parser ${PTX_FILE#"$ROOT"/}"
"$VENV/bin/python" -m pyptx.parser "$PTX_FILE"

PORT="$VENV/quickstart_port.py"
echo
echo "quickstart: pyptx transpile ${PTX_FILE#"$ROOT"/} -o ${PORT#"$ROOT"/}"
"$VENV/bin/pyptx" transpile "$PTX_FILE" -o "$PORT"
if "$VENV/bin/python" "$PORT" | cmp -s - "$PTX_FILE"; then
    echo "quickstart: the generated Python ($(wc -l < "$PORT") lines) re-emits" \
        "${PTX_FILE#"$ROOT"/} byte for byte"
else
    echo "quickstart: the generated Python does not re-emit ${PTX_FILE#"$ROOT"/}" >&2
    exit 1
fi
