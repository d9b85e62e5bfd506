"""``ptx.raw(text)``: splice hand-written PTX statements, parsed (never passed through)."""

from __future__ import annotations

from dataclasses import replace

from pyptx.ir import Instruction, Label, StateSpace, VariableDecl, walk
from pyptx.parser import PtxSyntaxError

from ._trace import current
from .errors import PtxDslError, user_location
from .verbatim import BODY_LINE_OFFSET, body_statements

__all__ = ["raw"]


def raw(text: str) -> None:
    """Parse ``text`` as function-body PTX and add its statements to the kernel.

    The text skips the ISA table but not the parser: malformed PTX raises at the caller's
    line with the parser's message. Labels it places count as placed for ``ptx.bra``, and
    registers it declares (``.reg``) may be used by later ``ptx.*`` calls.

    Raises:
        PtxDslError: the text is not well-formed PTX statements.
    """
    if not isinstance(text, str):
        raise PtxDslError(f"ptx.raw takes PTX text as str, got {type(text).__name__}")
    trace = current()
    try:
        statements = body_statements(text)  # cached: transpiled code repeats ``.loc`` lines
    except PtxSyntaxError as e:
        line = e.line - BODY_LINE_OFFSET
        raise PtxDslError(
            f"ptx.raw: {e.message} (line {line} of the raw text: {e.source_line.strip()!r})"
        ) from None
    for decl in (n for s in statements for n in walk(s)):
        if isinstance(decl, VariableDecl) and decl.state_space is StateSpace.REG and decl.type:
            for d in decl.declarators:
                for name in d.names():
                    trace.reg_types.setdefault(name, decl.type)
    here = None if trace.verbatim else user_location()  # see Trace.locations
    for stmt in statements:
        if isinstance(stmt, Label):
            trace.define_label(stmt.name)
            continue
        if isinstance(stmt, Instruction):
            stmt = replace(stmt)  # its own node: the trace records each call's Python line
            trace.instructions.append(stmt)
            if here is not None:
                trace.locations[id(stmt)] = here
        trace.append(stmt)
