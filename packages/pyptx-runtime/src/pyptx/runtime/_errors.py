"""The errors pyptx.runtime raises; every one derives from :class:`RuntimeLaunchError`."""

from __future__ import annotations

__all__ = [
    "ArgumentError",
    "CompileError",
    "GpuUnavailable",
    "RuntimeLaunchError",
    "ShimError",
]


class RuntimeLaunchError(Exception):
    """Base class of every error raised by pyptx.runtime."""


class ArgumentError(RuntimeLaunchError, ValueError):
    """A call's arguments do not fit the kernel's specs (shape, dtype, device, layout...).

    The message names the argument and says what was expected and what was got.
    """


class CompileError(RuntimeLaunchError):
    """Every available toolchain rejected the kernel's PTX.

    Attributes:
        log: the toolchain's error log.
        ptx_line: the 1-based PTX line the log points at, when it names one.
        python_location: ``(file, line)`` of the ``ptx.*`` call that emitted that line, when
            the PTX came from a traced kernel.
    """

    def __init__(
        self,
        message: str,
        *,
        log: str = "",
        ptx_line: int | None = None,
        python_location: tuple[str, int] | None = None,
    ) -> None:
        super().__init__(message)
        self.log = log
        self.ptx_line = ptx_line
        self.python_location = python_location


class GpuUnavailable(RuntimeLaunchError):
    """A GPU launch was asked for where there is none (no driver, no device, no cuda-python)."""


class ShimError(RuntimeLaunchError):
    """The C++ launch shim cannot be built or loaded (the message says why)."""
