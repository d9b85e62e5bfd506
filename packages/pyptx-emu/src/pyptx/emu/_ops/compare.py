"""Comparison and selection: ``setp``, ``set``, ``selp``, ``slct``."""

from __future__ import annotations

from typing import Any

import numpy as np

from pyptx.ir import PtxType

from .._lanes import Lanes
from .._machine import Executor
from .._site import Site

__all__ = ["SEMANTICS"]

_INT_CMP = {
    "eq": np.equal,
    "ne": np.not_equal,
    "lt": np.less,
    "le": np.less_equal,
    "gt": np.greater,
    "ge": np.greater_equal,
    "lo": np.less,
    "ls": np.less_equal,
    "hi": np.greater,
    "hs": np.greater_equal,
}


def setp(site: Site) -> Executor:
    """``setp.cmp.type p|q, a, b``."""
    ty = site.type()
    cmp = site.slot("cmp") or "eq"
    if ty.kind.value == "float" or site.slot("bool") is not None:
        raise site.not_emulated(site.mnemonic)
    fn = _INT_CMP[cmp]
    a, b = site.src("a", ty), site.src("b", ty)
    p, q = site.predicate_pair("p")

    def run(m: Any, lanes: Lanes) -> Any:
        t = fn(a(m, lanes), b(m, lanes))
        p(m, lanes, t)
        if q is not None:
            q(m, lanes, ~t)

    return run


def selp(site: Site) -> Executor:
    """``selp.type d, a, b, c``: ``c ? a : b``."""
    ty = site.type()
    a, b = site.src("a", ty), site.src("b", ty)
    c = site.src("c", PtxType.PRED)
    d = site.dst("d", ty)

    def run(m: Any, lanes: Lanes) -> Any:
        d(m, lanes, np.where(c(m, lanes), a(m, lanes), b(m, lanes)))

    return run


SEMANTICS = {"setp": setp, "selp": selp}
