"""check_instruction remembers passing instruction shapes; the verdicts must not change.

Over corpus files, every instruction is judged twice: by ``isa.check`` directly and by
``check_instruction`` (which answers from its cache of passed ``isa.shape_key`` shapes).
"""

from __future__ import annotations

import pytest
from codegen_testing import corpus_files, corpus_id

from pyptx.dsl._trace import Trace
from pyptx.dsl.errors import PtxDslError
from pyptx.dsl.validate import LATEST_PTX, check_instruction
from pyptx.ir import Instruction, PtxType, StateSpace, Target, VariableDecl, lookup_target
from pyptx.ir.isa import check
from pyptx.parser import parse

FILES = corpus_files()[::7]


@pytest.mark.parametrize("path", FILES, ids=corpus_id)
def test_cached_verdicts_match_the_table(path) -> None:  # type: ignore[no-untyped-def]
    module = parse(path.read_text(encoding="utf-8"))
    arch = next(
        (
            t
            for s in module.statements
            if isinstance(s, Target)
            for t in s.targets
            if lookup_target(t) is not None
        ),
        "sm_90a",
    )
    for f in module.functions:
        if f.body is None:
            continue
        trace = Trace(f.name, arch, module.version)
        statements = list(f.body.walk_statements())
        for s in statements:
            if isinstance(s, VariableDecl) and s.state_space is StateSpace.REG and s.type:
                for d in s.declarators:
                    for name in d.names():
                        trace.reg_types[name] = s.type
        # Rounds: declared types, the same again (answered from the cache), then every
        # register retyped .b16, so that many instructions fail where their shapes passed.
        retyped = Trace(f.name, arch, module.version)
        retyped.reg_types.update(dict.fromkeys(trace.reg_types, PtxType.B16))
        for facts in (trace, trace, retyped):
            for s in statements:
                if not isinstance(s, Instruction):
                    continue
                version = module.version or LATEST_PTX
                direct = check(s, target=arch, version=version, reg_type=facts.reg_types.get)
                try:
                    check_instruction(facts, s)
                    cached_ok = True
                except PtxDslError:
                    cached_ok = False
                undeclared_or_special = not cached_ok and not direct
                assert cached_ok == (not direct) or undeclared_or_special, s.mnemonic


def test_a_shape_passed_for_one_target_is_judged_again_for_another() -> None:
    # One verdict per shape serves every target and version; each pair is judged on its own.
    from pyptx.ir import Register, VectorOperand

    fence = Instruction("fence", ("proxy", "async", "shared::cta"), ())
    add = Instruction("add", ("rn", "f16x2"), (Register("%r1"), Register("%r2"), VectorOperand(())))
    hopper = Trace("k", "sm_90a", (8, 0))
    hopper.reg_types.update({"%r1": PtxType.B32, "%r2": PtxType.B32})
    check_instruction(hopper, fence)
    for arch, version in (("sm_80", (8, 0)), ("sm_90a", (7, 8))):
        with pytest.raises(PtxDslError, match=r"fence\.proxy\.async"):
            check_instruction(Trace("k", arch, version), fence)
    check_instruction(Trace("k", "sm_100a", (8, 7)), fence)
    # A shape that fails everywhere fails every time, with its message.
    for _ in range(2):
        with pytest.raises(PtxDslError, match="operand 2"):
            check_instruction(hopper, add)
