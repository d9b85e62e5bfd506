#!/usr/bin/env bash
# Run pyptx's GPU checks on an NVIDIA machine, offline, from the repository root.
#
#   OUT=/some/dir bash scripts/gpu_suite.sh [extra pytest arguments]
#
# Nothing is installed: every packages/*/src goes on PYTHONPATH and the machine's own python3
# (with torch, jax, cuda-python, numpy, pytest) runs the code. The script
#   1. prints the environment: GPUs, driver, python, torch / jax / cuda-python versions, the
#      C++ compiler (the launch shim needs one), ptxas, and what pyptx.runtime sees: the
#      device target, the toolchains it would compile with and whether the shim loads;
#   2. runs `pytest -m gpu` once per test directory that has gpu-marked tests
#      (packages/pyptx-runtime/tests -> $OUT/gpu-tests.xml, then packages/pyptx-kernels/tests
#      and any other -> $OUT/gpu-tests-<dir>.xml), leaving out test files (and whole
#      directories, through their conftest.py) that import hypothesis when it is not installed;
#   3. runs benchmarks/kernels.py -> $OUT/kernels.json (pyptx.kernels beside cuBLAS, torch
#      eager and torch.compile; bounded by its own --budget, compile rows last);
#   4. runs benchmarks/launch_overhead.py -> $OUT/launch_overhead.json;
#   5. runs benchmarks/launch_breakdown.py -> $OUT/launch_breakdown.json and a cProfile of
#      an eager launch in $OUT/launch_profile.txt.
# Everything it prints is also written to $OUT/gpu_suite.log. It exits non-zero when a test
# run fails (or collects nothing in packages/pyptx-runtime/tests) or a benchmark fails, and
# stays under 8 minutes: each step runs under `timeout`, within an overall deadline, with time
# held back for the steps after it; a step that would get less than MIN_STEP seconds is
# skipped and named in the last line ("INCOMPLETE"), which does not change the exit status.
# OUT defaults to ./gpu-out. Where the copy of the repository has no .git, set PYPTX_COMMIT to
# the commit it holds: the benchmarks record it.

set -uo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT" || exit 2
OUT="${OUT:-./gpu-out}"
mkdir -p "$OUT" || exit 2
OUT="$(cd "$OUT" && pwd)"
LOG="$OUT/gpu_suite.log"

DEADLINE=465 # seconds for everything (7 min 45 s; the limit is 8 minutes)
MIN_STEP=20  # a step that would get less time than this is skipped (and reported)
# Time held back for the steps that follow, while a step runs (each is a minimum, not a cap):
TESTS_MIN=90        # each test directory still to run
KERNELS_BENCH_MIN=90 # benchmarks/kernels.py
LAUNCH_BENCH_MIN=60 # benchmarks/launch_overhead.py
BREAKDOWN_MIN=30    # benchmarks/launch_breakdown.py
BENCH_RESERVE=$((KERNELS_BENCH_MIN + LAUNCH_BENCH_MIN + BREAKDOWN_MIN))
PYTHON="${PYTHON:-python3}"
SKIPPED=()

# --------------------------------------------------------------------------------------------

remaining() { echo $((DEADLINE - SECONDS)); }

# step_timeout CAP [RESERVE]: CAP, or less so that RESERVE seconds stay before the deadline;
# 0 when that leaves less than MIN_STEP (the caller skips the step).
step_timeout() {
    local cap=$1 reserve=${2:-0} left
    left=$(($(remaining) - reserve))
    if ((left < cap)); then cap=$left; fi
    if ((cap < MIN_STEP)); then cap=0; fi
    echo "$cap"
}

# skip_for_time NAME: notes that step NAME did not run for lack of time.
skip_for_time() {
    echo "!! skipped for lack of time ($(remaining)s left before the deadline): $1"
    SKIPPED+=("$1")
}

section() { printf '\n==== %s (t=%ss)\n' "$*" "$SECONDS"; }

# run_limited SECONDS CMD...: CMD under timeout; prints why when the time runs out.
run_limited() {
    local limit=$1 rc
    shift
    timeout -k 10 "$limit" "$@"
    rc=$?
    if ((rc == 124 || rc == 137)); then
        echo "!! timed out after ${limit}s: $*"
    fi
    return "$rc"
}

have_module() { "$PYTHON" -c "import $1" >/dev/null 2>&1; }

imports_hypothesis() { grep -Eq '^[[:space:]]*(import|from)[[:space:]]+hypothesis' "$1"; }

print_environment() {
    section "environment"
    echo "repository: $ROOT"
    echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "commit: $(git -C "$ROOT" rev-parse HEAD 2>/dev/null ||
        echo "${PYPTX_COMMIT:-unknown (no git metadata; set PYPTX_COMMIT)}")"
    echo "kernel: $(uname -srm)"
    echo "--- nvidia-smi -L"
    run_limited 30 nvidia-smi -L || echo "(nvidia-smi failed or is missing)"
    run_limited 30 nvidia-smi --query-gpu=name,driver_version,memory.total,compute_cap \
        --format=csv || true
    echo "--- python: $(command -v "$PYTHON") ($("$PYTHON" --version 2>&1))"
    run_limited 60 "$PYTHON" - <<'EOF' || true
import importlib.metadata as md

def version(name):
    try:
        return md.version(name)
    except md.PackageNotFoundError:
        return "not installed"

for name in ("torch", "jax", "jaxlib", "jax-cuda13-plugin", "cuda-python", "cuda-bindings",
             "cuda-core", "nvidia-nvjitlink", "nvidia-cuda-nvcc", "numpy", "ml-dtypes",
             "pytest", "pytest-xdist", "hypothesis"):
    print(f"{name:>18}: {version(name)}")
try:
    import torch
    print(f"torch CUDA {torch.version.cuda}, available: {torch.cuda.is_available()}, "
          f"devices: {torch.cuda.device_count()}")
    if torch.cuda.is_available():
        print(f"torch device 0: {torch.cuda.get_device_name(0)}, "
              f"capability {torch.cuda.get_device_capability(0)}")
except Exception as exc:
    print(f"torch: {type(exc).__name__}: {exc}")
try:
    import jax
    print(f"jax devices: {jax.devices()}")
except Exception as exc:
    print(f"jax: {type(exc).__name__}: {exc}")
EOF
    echo "--- C++ compiler: $(command -v c++ || command -v g++ || echo none)"
    echo "--- ptxas on PATH: $(command -v ptxas || echo none); nvcc: $(command -v nvcc || echo none)"
    echo "--- pyptx.runtime"
    # Builds the launch shim (cached under PYPTX_CACHE_DIR), so the tests do not pay for it.
    local limit
    limit=$(step_timeout 180 $((BENCH_RESERVE + 2 * TESTS_MIN)))
    if ((limit == 0)); then
        skip_for_time "python -m pyptx.runtime"
        return 0
    fi
    run_limited "$limit" "$PYTHON" -m pyptx.runtime || true
}

# Test directories holding gpu-marked tests: the runtime's, the kernels', then any other.
gpu_test_dirs() {
    local dir
    echo "packages/pyptx-runtime/tests"
    echo "packages/pyptx-kernels/tests"
    for dir in packages/*/tests tests; do
        [[ -d $dir && $dir != packages/pyptx-runtime/tests ]] || continue
        [[ $dir != packages/pyptx-kernels/tests ]] || continue
        if grep -rlqE 'pytest\.mark\.gpu|mark\.gpu\b' --include='*.py' "$dir"; then
            echo "$dir"
        fi
    done
}

# run_tests DIR LATER: pytest -m gpu DIR, keeping time for LATER test directories after it.
run_tests() {
    local dir=$1 later=$2 name junit limit rc file
    local -a ignores=()
    name=$(basename "$(dirname "$dir")")
    [[ $dir == tests ]] && name=integration
    if [[ $dir == packages/pyptx-runtime/tests ]]; then
        junit="$OUT/gpu-tests.xml"
    else
        junit="$OUT/gpu-tests-$name.xml"
    fi
    section "pytest -m gpu $dir"
    if ! have_module hypothesis; then
        if [[ -f $dir/conftest.py ]] && imports_hypothesis "$dir/conftest.py"; then
            echo "skipped: $dir/conftest.py imports hypothesis, which is not installed here"
            return 0
        fi
        while IFS= read -r file; do
            if imports_hypothesis "$file"; then
                echo "leaving out $file (imports hypothesis, not installed here)"
                ignores+=("--ignore=$file")
            fi
        done < <(find "$dir" -name '*.py' | sort)
    fi
    limit=$(step_timeout 240 $((BENCH_RESERVE + later * TESTS_MIN)))
    if ((limit == 0)); then
        skip_for_time "pytest -m gpu $dir"
        return 0
    fi
    run_limited "$limit" "$PYTHON" -m pytest -m gpu "$dir" -q -p no:cacheprovider -rfEs \
        --tb=short --durations=15 \
        --junitxml "$junit" "${ignores[@]}" "${PYTEST_ARGS[@]}"
    rc=$?
    echo "pytest $dir: exit $rc"
    # 5: nothing selected. Acceptable elsewhere, a failure for the runtime's own GPU tests.
    if ((rc == 5)) && [[ $dir != packages/pyptx-runtime/tests ]]; then rc=0; fi
    return "$rc"
}

# The kernel library's benchmark: at most 10 timed samples (of ~5 ms of GPU time) per row
# after 5 warm-up calls; it stops starting rows 20 s before its step's limit (--budget) and
# prints what it measured; a SIGTERM from `timeout` does the same.
run_kernels_benchmark() {
    local rc limit
    section "benchmarks/kernels.py"
    limit=$(step_timeout 180 $((LAUNCH_BENCH_MIN + BREAKDOWN_MIN)))
    if ((limit == 0)); then
        skip_for_time "benchmarks/kernels.py"
        return 0
    fi
    run_limited "$limit" "$PYTHON" benchmarks/kernels.py --repeat 10 --warmup 5 \
        --budget $((limit - 20)) --json "$OUT/kernels.json"
    rc=$?
    echo "kernels.py: exit $rc"
    return "$rc"
}

run_benchmark() {
    local rc limit
    section "benchmarks/launch_overhead.py"
    limit=$(step_timeout 120 "$BREAKDOWN_MIN")
    if ((limit == 0)); then
        skip_for_time "benchmarks/launch_overhead.py"
        return 0
    fi
    run_limited "$limit" "$PYTHON" benchmarks/launch_overhead.py \
        --json "$OUT/launch_overhead.json"
    rc=$?
    echo "launch_overhead.py: exit $rc"
    return "$rc"
}

run_breakdown() {
    local rc limit
    section "benchmarks/launch_breakdown.py"
    limit=$(step_timeout 90)
    if ((limit == 0)); then
        skip_for_time "benchmarks/launch_breakdown.py"
        return 0
    fi
    run_limited "$limit" "$PYTHON" benchmarks/launch_breakdown.py \
        --json "$OUT/launch_breakdown.json" --profile "$OUT/launch_profile.txt"
    rc=$?
    echo "launch_breakdown.py: exit $rc"
    return "$rc"
}

main() {
    local failed=0 dir later
    local -a dirs=()
    PYTHONPATH="$(printf '%s:' "$ROOT"/packages/*/src)${PYTHONPATH:-}"
    export PYTHONPATH="${PYTHONPATH%:}"
    export PYTHONUNBUFFERED=1 PYTHONDONTWRITEBYTECODE=1
    export XLA_PYTHON_CLIENT_PREALLOCATE=false # torch and JAX share the GPU in one process
    export PYPTX_CACHE_DIR="${PYPTX_CACHE_DIR:-$(mktemp -d /tmp/pyptx-gpu-suite.XXXXXX)}"
    echo "OUT=$OUT PYPTX_CACHE_DIR=$PYPTX_CACHE_DIR"
    echo "PYTHONPATH=$PYTHONPATH"

    print_environment
    mapfile -t dirs < <(gpu_test_dirs)
    later=${#dirs[@]}
    for dir in "${dirs[@]}"; do
        later=$((later - 1))
        run_tests "$dir" "$later" || failed=1
    done
    run_kernels_benchmark || failed=1
    run_benchmark || failed=1
    run_breakdown || failed=1

    section "done"
    if ((failed)); then
        echo "GPU suite FAILED (see above); logs and reports in $OUT"
    else
        echo "GPU suite passed; logs and reports in $OUT"
    fi
    if ((${#SKIPPED[@]})); then
        printf 'INCOMPLETE: skipped for lack of time:'
        printf ' [%s]' "${SKIPPED[@]}"
        printf '\n'
    fi
    echo "total: ${SECONDS}s of a ${DEADLINE}s deadline"
    return "$failed"
}

PYTEST_ARGS=("$@")
main 2>&1 | tee "$LOG"
exit "${PIPESTATUS[0]}"
