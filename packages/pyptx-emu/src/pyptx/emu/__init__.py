"""CPU emulator for PTX kernels.

Runs kernels on numpy arrays without a GPU and reports out-of-bounds accesses, deadlocks and
races instead of executing them.
"""

__all__: list[str] = []
