"""pyptx.parser: a lossless PTX parser.

:func:`parse` turns PTX text into a :class:`pyptx.ir.Module` that keeps every space, line
break and comment as trivia on the nodes, so :func:`pyptx.emitter.emit` rebuilds the exact
input from the tree. The parser is opcode-agnostic: any instruction whose shape is
``[@pred] opcode.mods operand, ...;`` is accepted, which covers every instruction ptxas
knows, including ones newer than this package. Malformed input raises
:class:`PtxSyntaxError` with ``file:line:col``, the line and a caret.

Example::

    from pyptx.parser import parse
    from pyptx.emitter import emit

    module = parse(open("kernel.ptx").read(), "kernel.ptx")
    assert emit(module) == open("kernel.ptx").read()
"""

from __future__ import annotations

import gc
import os

from pyptx.ir import Module

from ._module import parse_module
from ._source import decode_source, os_error_reason, read_source
from ._spans import with_spans
from .errors import PtxSyntaxError, PtxSyntaxNote

__all__ = [
    "PtxSyntaxError",
    "PtxSyntaxNote",
    "decode_source",
    "os_error_reason",
    "parse",
    "parse_file",
    "read_source",
    "with_spans",
]


def parse(text: str, filename: str = "<string>", *, spans: bool = False) -> Module:
    """Parse PTX source text.

    Args:
        text: the PTX program.
        filename: the name used in error messages.
        spans: also record where each instruction starts (``Instruction.span``: file, line,
            column), which ISA diagnostics (:func:`pyptx.ir.isa.check_module`) and the
            emulator's errors then name. It costs an emitter pass, and identical lines
            no longer share one node.

    Returns:
        The module, with trivia attached so that ``emit(parse(text)) == text``.

    Raises:
        PtxSyntaxError: the text is not well-formed PTX.
        TypeError: ``text`` is not a ``str``.
    """
    if not isinstance(text, str):
        raise TypeError(f"parse() expects PTX text as str, got {type(text).__name__}")
    # Parsing allocates many small objects and frees none of them, so the cyclic garbage
    # collector would only rescan the growing tree; it is paused for the call (and resumed
    # even if parsing fails). Nothing in the tree is cyclic.
    paused = gc.isenabled()
    if paused:
        gc.disable()
    try:
        module = parse_module(text, filename)
        return with_spans(module, filename) if spans else module
    finally:
        if paused:
            gc.enable()


def parse_file(path: str | os.PathLike[str], *, spans: bool = False) -> Module:
    """Read and parse a PTX file (UTF-8; line endings are kept as they are).

    ``spans`` is as for :func:`parse`.

    Raises:
        PtxSyntaxError: the file is not well-formed PTX, or not UTF-8 text.
        OSError: the file cannot be read.
    """
    return parse(read_source(path), os.fspath(path), spans=spans)
