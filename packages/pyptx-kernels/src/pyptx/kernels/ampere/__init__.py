"""Ampere (sm_80) kernels: mma.sync GEMM over ldmatrix and multi-stage cp.async; row-wise."""
