"""Helpers for the DSL tests (pytest puts this directory on sys.path)."""

from __future__ import annotations

import inspect
import itertools
from collections.abc import Callable, Collection, Iterator
from pathlib import Path

import pytest

from pyptx import PtxDslError
from pyptx.dsl import validate
from pyptx.ir import Instruction, isa


def body(text: str) -> list[str]:
    """The instruction and label lines of the first function body, stripped, no decls."""
    lines = text.split("\n")
    start = lines.index("{") + 1
    end = len(lines) - 1 - lines[::-1].index("}")
    return [
        ln.strip()
        for ln in lines[start:end]
        if ln.strip() and not ln.strip().startswith((".reg", ".shared", ".local"))
    ]


def here() -> int:
    """The caller's line number (for asserting where an error is reported)."""
    frame = inspect.currentframe()
    assert frame is not None and frame.f_back is not None
    return frame.f_back.f_lineno


def raises_at(k, where: list[int], match: str) -> str:  # type: ignore[no-untyped-def]
    """Trace ``k``; it must raise PtxDslError at the caller's file and the line last in ``where``.

    The message must also name no pyptx-internal path.
    """
    frame = inspect.currentframe()
    assert frame is not None and frame.f_back is not None
    filename = Path(frame.f_back.f_code.co_filename).name
    with pytest.raises(PtxDslError, match=match) as info:
        k.ptx()
    text = str(info.value)
    assert f"{filename}:{where[-1]}:" in text, text
    assert "pyptx/dsl" not in text and "pyptx/ptx" not in text, text
    return text


TABLE = "<the ISA table's reason>"
"""``match`` for a call only the ISA table rejects: the expected message is computed here."""


def table_verdicts(trace: Callable[[], object]) -> list[tuple[Instruction, str]]:
    """Run ``trace`` with the table's check recorded instead of enforced.

    Returns:
        Each instruction checked, with the table's first reason to reject it ("" if none).
    """
    seen: list[tuple[Instruction, str]] = []

    def record(facts: validate.TraceFacts, insn: Instruction) -> None:
        version = facts.version or validate.LATEST_PTX
        diags = isa.check(insn, target=facts.arch, version=version, reg_type=facts.reg_types.get)
        seen.append((insn, diags[0].message if diags else ""))

    with pytest.MonkeyPatch.context() as m:
        m.setattr(validate, "check_instruction", record)
        trace()
    return seen


def table_reason(k) -> str:  # type: ignore[no-untyped-def]
    """Trace ``k`` with the table's check recorded instead of enforced; its first reason."""
    found = [f"{insn.mnemonic}: {why}" for insn, why in table_verdicts(k.ptx) if why]
    assert found, "the ISA table accepts every instruction of this call"
    return found[0]


def insn(mnemonic: str, operands: tuple[object, ...] = ()) -> Instruction:
    """An instruction spelled ``mnemonic`` (dot-separated) with ``operands``."""
    opcode, *mods = mnemonic.split(".")
    return Instruction(opcode, tuple(mods), operands)  # type: ignore[arg-type]


def check_reason(instruction: Instruction, arch: str, version: tuple[int, int] | None) -> str:
    """``mnemonic: message`` of the table's first diagnostic; the table must reject it."""
    diags = isa.check(instruction, target=arch, version=version or validate.LATEST_PTX)
    assert diags, f"the table accepts {instruction.mnemonic}; pick a form it rejects"
    return f"{instruction.mnemonic}: {diags[0].message}"


def rejects_at(k, reason: str, make: Callable[..., object]) -> str:  # type: ignore[no-untyped-def]
    """Trace ``k``: it must raise PtxDslError saying ``reason`` at the first line of ``make``."""
    with pytest.raises(PtxDslError) as info:
        k.ptx()
    msg = str(info.value)
    assert reason in msg, (reason, msg)
    code = make.__code__
    assert f"{Path(code.co_filename).name}:{code.co_firstlineno}:" in msg, msg
    return msg


def lowest_target(req: isa.Requirements) -> str:
    """The lowest target the table admits, but at least sm_80 (what the DSL is tested on)."""
    if req.needs_arch_specific:
        return req.suggest_target()
    return f"sm_{max(req.min_sm, 80)}"


def assignments(
    form: isa.Form, absent: Collection[str] = (), cap: int = 48
) -> Iterator[dict[str, str | None]]:
    """Slot values of ``form``: each at least once; the whole product when it is at most ``cap``.

    Slots named in ``absent`` are only ever left out (``None``).
    """
    options = [
        (g.name, (None,) if g.name in absent else g.values if g.required else (None, *g.values))
        for g in form.groups
    ]
    names = [n for n, _ in options]
    product = list(itertools.product(*(values for _, values in options)))
    if len(product) <= cap:
        yield from (dict(zip(names, combo, strict=True)) for combo in product)
        return
    base: dict[str, str | None] = {n: values[0] for n, values in options}
    yield base
    for n, values in options:
        for v in values[1:]:
            yield {**base, n: v}


def combos(form: isa.Form, cap: int) -> Iterator[dict[str, str]]:
    """Slot values of ``form`` (absent ones left out): the whole product when it is at most
    ``cap``, else the rows that take each slot's values in turn (every value at least once)."""
    choices = [[*g.values, *([] if g.required else [None])] for g in form.groups]
    rows = list(itertools.product(*choices))
    if len(rows) > cap:
        width = max(len(c) for c in choices)
        rows = [tuple(c[i % len(c)] for c in choices) for i in range(width)]
    for row in rows:
        yield {g.name: v for g, v in zip(form.groups, row, strict=True) if v is not None}
