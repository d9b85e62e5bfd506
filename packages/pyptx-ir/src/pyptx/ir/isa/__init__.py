"""pyptx.ir.isa: the PTX instruction set as data, and a checker built on it.

:data:`SPECS` declares every instruction of the PTX ISA 9.x used on ``sm_80``, ``sm_90a``,
``sm_100a`` and ``sm_120a``: its compound name, its forms (modifier slots and operands), the
PTX version and targets it needs (per instruction, form and modifier) and its PTX ISA
section. The same table drives :func:`check` (validating an instruction for a ``.target``
and ``.version`` before ``ptxas`` sees it), :func:`requirements` (the lowest ``.version`` and
target a kernel needs), the DSL's generic builder and the docs.

Example::

    from pyptx.ir import Instruction, Register
    from pyptx.ir.isa import check

    insn = Instruction("add", ("s32",), (Register("%r1"), Register("%r2")))
    for diag in check(insn, target="sm_90a", version=(8, 5)):
        print(diag.code.name, diag)   # OPERAND_COUNT add.s32 expects 3 operands ...
"""

from __future__ import annotations

from ._check import (
    Diagnostic,
    DiagnosticCode,
    Match,
    Verdict,
    check,
    lookup,
    match,
    requirements,
    verdict,
)
from ._model import (
    DOC_BASE,
    Form,
    Gate,
    InstructionSpec,
    ModifierGroup,
    OperandKind,
    OperandSpec,
    Requirements,
    Width,
    family_targets,
)
from ._module_check import check_module
from ._registry import SPECS
from ._shape import shape_key

__all__ = [
    "DOC_BASE",
    "SPECS",
    "Diagnostic",
    "DiagnosticCode",
    "Form",
    "Gate",
    "InstructionSpec",
    "Match",
    "ModifierGroup",
    "OperandKind",
    "OperandSpec",
    "Requirements",
    "Verdict",
    "Width",
    "check",
    "check_module",
    "family_targets",
    "lookup",
    "match",
    "requirements",
    "shape_key",
    "verdict",
]
