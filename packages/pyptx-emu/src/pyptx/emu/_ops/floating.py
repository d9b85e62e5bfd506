"""Floating-point arithmetic on ``.f32``, ``.f64``, ``.f16``/``.bf16`` (and ``x2``)."""

from __future__ import annotations

from typing import Any

import numpy as np

from .._lanes import Lanes
from .._machine import Executor
from .._site import Site

__all__ = ["SEMANTICS", "add", "mul", "sub"]


def _binary(site: Site, fn: Any) -> Executor:
    ty = site.type()
    if ty.value not in ("f32", "f64") or (site.slot("rnd") or "rn") != "rn" or site.has("ftz"):
        raise site.not_emulated(site.mnemonic)
    a, b, d = site.src("a", ty), site.src("b", ty), site.dst("d", ty)

    def run(m: Any, lanes: Lanes) -> Any:
        with np.errstate(all="ignore"):
            d(m, lanes, fn(a(m, lanes), b(m, lanes)))

    return run


def add(site: Site) -> Executor:
    """``add.f32`` / ``add.f64``."""
    return _binary(site, np.add)


def sub(site: Site) -> Executor:
    """``sub.f32`` / ``sub.f64``."""
    return _binary(site, np.subtract)


def mul(site: Site) -> Executor:
    """``mul.f32`` / ``mul.f64``."""
    return _binary(site, np.multiply)


SEMANTICS: dict[str, Any] = {}
