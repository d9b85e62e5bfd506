"""The type, state-space, target and special-register tables."""

from __future__ import annotations

import pytest

from pyptx.ir import (
    SPECIAL_REGISTERS,
    TARGETS,
    PtxType,
    StateSpace,
    TargetVariant,
    TypeKind,
    lookup_target,
    min_ptx_version,
)


def test_every_type_has_info_and_round_trips_its_name() -> None:
    for t in PtxType:
        assert t.info.bits > 0
        assert PtxType.from_name(t.ptx) is t
        assert PtxType.from_name(t.value) is t


@pytest.mark.parametrize(
    ("name", "bits", "lanes", "element"),
    [
        ("e4m3", 8, 1, 8),
        ("e4m3x4", 32, 4, 8),
        ("e2m1x2", 8, 2, 4),
        ("e2m3", 8, 1, 6),
        ("e3m2x2", 16, 2, 6),
        ("ue8m0", 8, 1, 8),
        ("bf16x2", 32, 2, 16),
        ("f16x2", 32, 2, 16),
        ("b128", 128, 1, 128),
    ],
)
def test_low_precision_and_packed_types(name: str, bits: int, lanes: int, element: int) -> None:
    t = PtxType.from_name(name)
    assert t is not None
    assert (t.bits, t.info.lanes, t.info.element_width) == (bits, lanes, element)


def test_type_kinds() -> None:
    assert PtxType.S32.kind is TypeKind.SIGNED
    assert PtxType.PRED.kind is TypeKind.PREDICATE
    assert PtxType.TEXREF.kind is TypeKind.OPAQUE
    assert PtxType.from_name(".b33") is None


def test_state_spaces_keep_sub_space_spelling() -> None:
    assert StateSpace.from_name(".shared::cluster") is StateSpace.SHARED_CLUSTER
    assert StateSpace.SHARED_CTA.ptx == ".shared::cta"
    assert StateSpace.from_name("texture") is None


@pytest.mark.parametrize(
    ("target", "version", "variant"),
    [
        ("sm_80", (7, 0), TargetVariant.BASE),
        ("sm_90", (7, 8), TargetVariant.BASE),
        ("sm_90a", (8, 0), TargetVariant.ARCH_SPECIFIC),
        ("sm_100a", (8, 6), TargetVariant.ARCH_SPECIFIC),
        ("sm_100f", (8, 8), TargetVariant.FAMILY_SPECIFIC),
        ("sm_120a", (8, 7), TargetVariant.ARCH_SPECIFIC),
        ("sm_110f", (9, 0), TargetVariant.FAMILY_SPECIFIC),
    ],
)
def test_targets(target: str, version: tuple[int, int], variant: TargetVariant) -> None:
    info = lookup_target(target)
    assert info is not None
    assert info.min_ptx == version == min_ptx_version(target)
    assert info.variant is variant


def test_sm90_has_no_family_variant_and_errors_name_the_known_forms() -> None:
    assert "sm_90f" not in TARGETS
    with pytest.raises(ValueError, match="known forms of sm_90: sm_90, sm_90a"):
        min_ptx_version("sm_90f")
    with pytest.raises(ValueError, match="unknown PTX target 'texmode_unified'"):
        min_ptx_version("texmode_unified")


def test_special_registers() -> None:
    assert SPECIAL_REGISTERS["%tid.x"].type is PtxType.U32
    assert SPECIAL_REGISTERS["%clock64"].type is PtxType.U64
    assert SPECIAL_REGISTERS["%cluster_ctarank"].min_sm == 90
    assert "%envreg31" in SPECIAL_REGISTERS and "%envreg32" not in SPECIAL_REGISTERS
    assert "%r1" not in SPECIAL_REGISTERS
