"""Blackwell (sm_100a) kernels: tcgen05 GEMMs with Tensor Memory accumulators, row-wise kernels."""
