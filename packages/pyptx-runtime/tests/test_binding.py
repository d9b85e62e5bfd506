"""Argument checking before any launch: every mismatch names the argument and the fix."""

from __future__ import annotations

import numpy as np
import pytest
import runtime_kernels as rk
from examples_loader import example

from pyptx import Tile, kernel
from pyptx.runtime import ArgumentError
from pyptx.types import f32

X = np.arange(256, dtype=np.float32)


@pytest.mark.parametrize(
    ("args", "keywords", "message"),
    [
        ((X.reshape(16, 16), X.reshape(16, 16), 256), {}, r"argument 0 \(x\) should be a rank-1"),
        (
            (X, X.astype(np.float64), 256),
            {},
            r"argument 1 \(y\) should have dtype float32 .*got float64",
        ),
        ((X, X[:128], 256), {}, r"argument 1 \(y\) has N=128 .*earlier argument fixed N=256"),
        ((X,), {}, r"missing the input arrays y"),
        ((X, [1.0] * 256, 256), {}, r"argument 1 \(y\) should be an array .*got list"),
        ((X, X), {}, r"missing the scalar n \(\.u32\)"),
        ((X, X, 256, 7), {}, r"got 1 extra positional argument"),
        ((X, X, -1), {}, r"scalar n \(\.u32\) must be in \[0, 4294967295\], got -1"),
        ((X, X, 2**32), {}, r"must be in \[0, 4294967295\]"),
        ((X, X, 2.5), {}, r"scalar n \(\.u32\) must be an int, got 2.5"),
        ((X, X, "256"), {}, r"scalar n \(\.u32\) must be a Python number, got str"),
        ((X, X, 256), {"n": 256}, r"got scalar n twice"),
        ((X, X, 256), {"BM": 64}, r"unexpected keyword 'BM'.*N, n"),
        ((X, X[::2].copy()[:128].repeat(2)[::2], 256), {}, r"has N=128"),
        ((X, np.tile(X, 2)[::2], 256), {}, r"argument 1 \(y\) must be contiguous"),
        ((X, X, 256), {"backend": "tpu"}, r"backend must be 'gpu', 'emu' or None, got 'tpu'"),
    ],
)
def test_vector_add_argument_errors(args: tuple, keywords: dict, message: str) -> None:  # type: ignore[type-arg]
    vector_add = example("vector_add")
    with pytest.raises(ArgumentError, match=message):
        vector_add(*args, **keywords)


def test_scalar_by_name_and_positional_agree() -> None:
    vector_add = example("vector_add")
    np.testing.assert_array_equal(vector_add(X, X, n=256), vector_add(X, X, 256))


def test_concrete_dims_are_checked() -> None:
    rms_norm = example("rms_norm")
    hidden = rms_norm.in_specs[1].dims[0]
    x = np.zeros((2, hidden + 1), dtype=np.float32)
    w = np.zeros(hidden, dtype=np.float32)
    with pytest.raises(
        ArgumentError, match=rf"argument 0 \(x\) should have size {hidden} on axis 1"
    ):
        rms_norm(x, w)


def test_output_only_dims_are_passed_by_keyword() -> None:
    x = np.full((3, 1), 2.0, dtype=np.float32)
    with pytest.raises(
        ArgumentError, match=r"output y has dimension P, which no input fixes; pass P=<int>"
    ):
        rk.first_column(x)
    with pytest.raises(ArgumentError, match=r"P must be a positive int"):
        rk.first_column(x, P=0)
    with pytest.raises(ArgumentError, match=r"M=4 was passed, but the inputs fix M=3"):
        rk.first_column(x, P=1, M=4)
    np.testing.assert_array_equal(rk.first_column(x, P=1, SCALE=3), np.full((3, 1), 6.0))


def test_template_parameters_must_be_hashable() -> None:
    with pytest.raises(
        ArgumentError, match=r"template parameter SCALE must be hashable .*got list"
    ):
        rk.first_column(np.ones((1, 1), np.float32), P=1, SCALE=[1])


def test_mixing_array_libraries_is_refused() -> None:
    torch = pytest.importorskip("torch")
    vector_add = example("vector_add")
    with pytest.raises(
        ArgumentError, match=r"the inputs mix array libraries: x \(numpy\), y \(torch\)"
    ):
        vector_add(X, torch.from_numpy(X), 256)


def test_a_grid_callable_names_known_parameters() -> None:
    @kernel(in_specs=(Tile("N", f32),), grid=lambda rows: (rows, 1, 1), arch="sm_80")
    def k(x):  # type: ignore[no-untyped-def]
        pass

    with pytest.raises(
        ArgumentError, match=r"the grid callable takes 'rows', which is not a symbolic dim"
    ):
        k(X)


def test_a_kernel_without_specs_cannot_be_launched() -> None:
    @kernel(arch="sm_80")
    def k(x):  # type: ignore[no-untyped-def]
        pass

    with pytest.raises(ArgumentError, match=r"has tensor parameters but no in_specs/out_specs"):
        k(X)


def test_checks_still_apply_to_calls_that_reuse_a_cached_binding() -> None:
    vector_add = example("vector_add")
    np.testing.assert_array_equal(vector_add(X, X, 256), 2 * X)
    np.testing.assert_array_equal(vector_add(X + 1, X, 256), 2 * X + 1)  # new values, same key
    with pytest.raises(ArgumentError, match=r"scalar n \(\.u32\) must be in"):
        vector_add(X, X, -5)  # scalars are checked on every call
    with pytest.raises(ArgumentError, match=r"has N=128"):
        vector_add(X, X[:128], 256)  # another shape: another key, the full checks
    with pytest.raises(ArgumentError, match=r"must be contiguous"):
        vector_add(X, np.tile(X, 2)[::2], 256)  # same shape, other strides
