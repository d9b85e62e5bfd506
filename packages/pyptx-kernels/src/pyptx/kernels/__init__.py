"""Kernel library written with pyptx, organised by architecture (Ampere, Hopper, Blackwell).

Building a kernel's PTX needs no GPU; running it goes through :mod:`pyptx.runtime`.
"""

__all__: list[str] = []
