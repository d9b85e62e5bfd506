"""The pass pipeline: IR -> IR rewrites that run between parsing and code generation.

A pass is any callable taking and returning a :class:`pyptx.ir.Module` with a ``name``
attribute (see :class:`Pass`); passes are frozen dataclasses whose fields are their options.
:data:`SUGAR_PASSES` is what ``--sugar`` runs, in order; run your own list with
:func:`run_passes` and hand the result to :func:`pyptx.codegen.module_to_python`.

Every sugar pass keeps the program the same up to a consistent renaming of registers,
labels and symbols (:func:`pyptx.codegen.alpha.alpha_equivalent` checks exactly that in the
tests, for every corpus file), never reorders instructions, and leaves alone what it cannot
prove safe.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

from pyptx.ir import Module

from .regions import CollapseMbarrierWaits, FoldRepeats, GroupExpressions, RaiseLoops
from .renames import DemangleNames, NameParams, ShortenLabels, sharing_index

__all__ = ["SUGAR_PASSES", "Pass", "check_passes", "run_passes"]


@runtime_checkable
class Pass(Protocol):
    """An IR -> IR rewrite of the pipeline."""

    @property
    def name(self) -> str:
        """A short identifier (``"demangle"``, ``"raise-loops"``)."""
        ...

    def __call__(self, module: Module) -> Module:
        """Return the rewritten module (``module`` itself is never modified)."""
        ...


SUGAR_PASSES: tuple[Pass, ...] = (
    DemangleNames(debug_functions=False),
    ShortenLabels(),
    NameParams(),
    CollapseMbarrierWaits(),
    RaiseLoops(),
    FoldRepeats(),
    GroupExpressions(),
)
"""The passes ``sugar=True`` runs: name demangling, label shortening, parameter naming from
usage, mbarrier spin-loop collapse, loop raising, repeated-block folding, expression grouping.
Functions of a module that carries DWARF (``-G``) keep their names: DWARF names them in data
bytes, and ptxas lays out ``-G`` code differently once they no longer match. (WGMMA/tcgen05
operand-list compaction is a rendering choice that ``sugar=True`` also turns on; it does not
change the IR.)"""


def check_passes(passes: Sequence[object]) -> tuple[Pass, ...]:
    """``passes`` as a tuple of :class:`Pass`.

    Raises:
        TypeError: an entry is not a pass (no ``name`` or not callable).
    """
    for p in passes:
        if not isinstance(p, Pass):
            raise TypeError(f"{p!r} is not a pass: it needs a `name` and __call__(module)")
    return tuple(passes)  # type: ignore[arg-type]


def run_passes(module: Module, passes: Sequence[Pass]) -> Module:
    """Run ``passes`` in order and return the result.

    Consecutive renaming passes hand each other their name index
    (:func:`~pyptx.codegen.renames.sharing_index`) instead of each indexing the module anew;
    the result is the same as calling the passes one by one.

    Raises:
        TypeError: an entry is not a pass (no ``name`` or not callable).
    """
    chosen = check_passes(passes)
    with sharing_index():  # consecutive renaming passes share their name index
        for p in chosen:
            module = p(module)
    return module
