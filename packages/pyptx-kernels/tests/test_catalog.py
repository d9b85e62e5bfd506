"""pyptx.kernels.catalog(): one entry per kernel of the table, named after its arch directory."""

from __future__ import annotations

import dataclasses

import kernels_testing as kt
import pytest

import pyptx.kernels as K
from pyptx.kernels import _registry

IMPLEMENTATIONS = _registry.implementations()

# The arch directory a kernel's name starts with, for each arch.
ARCH_DIRS = {"sm_80": "ampere", "sm_90a": "hopper", "sm_100a": "blackwell"}
DTYPES = ("f32", "f16", "bf16", "e4m3", "e5m2")


def test_entries_follow_the_table() -> None:
    fakes = [kt.fake_swiglu("sm_80"), kt.fake_swiglu("sm_100a", name="fake.other")]
    with kt.only(fakes):
        entries = K.catalog()
    assert entries == [
        K.CatalogEntry("fake.swiglu_sm_80", "swiglu", "sm_80", ("f32",), {"hidden": 64}),
        K.CatalogEntry("fake.other", "swiglu", "sm_100a", ("f32",), {"hidden": 64}),
    ]


def test_entries_are_frozen_and_copy_the_example() -> None:
    impl = kt.fake_swiglu()
    with kt.only([impl]):
        (entry,) = K.catalog()
    with pytest.raises(dataclasses.FrozenInstanceError):
        entry.name = "x"  # type: ignore[misc]
    entry.example["hidden"] = 1  # type: ignore[index]
    assert impl.example == {"hidden": 64}


def test_the_real_catalog_lists_every_kernel() -> None:
    assert [e.name for e in K.catalog()] == [i.name for i in IMPLEMENTATIONS]


@pytest.mark.parametrize("impl", IMPLEMENTATIONS, ids=[i.name for i in IMPLEMENTATIONS])
def test_each_kernel_is_well_described(impl: K.Implementation) -> None:
    directory, _, kernel = impl.name.partition(".")
    assert directory == ARCH_DIRS[impl.arch], f"{impl.name} is for {impl.arch}"
    assert kernel.isidentifier()
    assert set(impl.dtypes) <= set(DTYPES), impl.dtypes
    assert isinstance(impl.example, dict)
    assert impl.spills == 0 or impl.notes, "documented spills need notes saying why"


@pytest.mark.parametrize("impl", IMPLEMENTATIONS, ids=[i.name for i in IMPLEMENTATIONS])
def test_each_kernel_writes_its_whole_output(impl: K.Implementation) -> None:
    """Every kernel of the table declares ``zero_outputs=False``: the runtime skips the zero
    fill of its output (one full write per call), and the emulator runs of the family tests
    start the output poisoned (NaN), so an element a kernel leaves unwritten fails them."""
    kernel = impl.build(**impl.example)
    assert kernel.zero_outputs is False, f"{impl.name} has its outputs zero-filled"
