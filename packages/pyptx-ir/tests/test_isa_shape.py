"""isa.shape_key: equal exactly where check() cannot tell two instructions apart."""

from __future__ import annotations

from pyptx.ir import Address, Immediate, Instruction, PtxType, Register
from pyptx.ir.isa import check, shape_key

TYPES = {
    "%r1": PtxType.B32,
    "%r2": PtxType.B32,
    "%r3": PtxType.B32,
    "%r4": PtxType.B32,
    "%rd1": PtxType.B64,
    "%h1": PtxType.B16,
}


def _add(*names: str, imm: int | None = None) -> Instruction:
    ops: list[Register | Immediate] = [Register(n) for n in names]
    if imm is not None:
        ops.append(Immediate(str(imm)))
    return Instruction("add", ("s32",), tuple(ops))


def test_register_names_drop_out() -> None:
    assert shape_key(_add("%r1", "%r2", "%r3"), TYPES.get) == shape_key(
        _add("%r4", "%r1", "%r2"), TYPES.get
    )


def test_register_types_stay() -> None:
    a = _add("%r1", "%r2", "%r3")
    b = _add("%r1", "%h1", "%r3")
    assert shape_key(a, TYPES.get) != shape_key(b, TYPES.get)
    assert bool(check(a, target="sm_90a", version=(8, 5), reg_type=TYPES.get)) != bool(
        check(b, target="sm_90a", version=(8, 5), reg_type=TYPES.get)
    )


def test_repeated_registers_stay() -> None:
    assert shape_key(_add("%r1", "%r1", "%r2"), TYPES.get) != shape_key(
        _add("%r1", "%r2", "%r3"), TYPES.get
    )


def test_unrestricted_immediates_drop_out() -> None:
    assert shape_key(_add("%r1", "%r2", imm=1), TYPES.get) == shape_key(
        _add("%r1", "%r2", imm=-7), TYPES.get
    )
    # An immediate still keys apart from a register in the same place.
    assert shape_key(_add("%r1", "%r2", imm=1), TYPES.get) != shape_key(
        _add("%r1", "%r2", "%r3"), TYPES.get
    )


def test_restricted_immediates_stay() -> None:
    # bar.sync's barrier id must be 0..15: 3 passes where 16 fails, so they key apart.
    def bar(n: int) -> Instruction:
        return Instruction("bar", ("sync",), (Immediate(str(n)),))

    assert shape_key(bar(3)) != shape_key(bar(16))
    assert not check(bar(3), target="sm_90a", version=(8, 5))
    assert check(bar(16), target="sm_90a", version=(8, 5))


def test_nested_registers_stay() -> None:
    ld = Instruction("ld", ("global", "u32"), (Register("%r1"), Address(Register("%rd1"))))
    ld32 = Instruction("ld", ("global", "u32"), (Register("%r1"), Address(Register("%r2"))))
    assert shape_key(ld, TYPES.get) != shape_key(ld32, TYPES.get)


def test_unknown_registers_key_as_untyped() -> None:
    assert shape_key(_add("%x", "%y", "%z")) == shape_key(_add("%a", "%b", "%c"))
    assert shape_key(_add("%r1", "%r2", "%r3")) != shape_key(_add("%r1", "%r2", "%r3"), TYPES.get)
