"""Hopper (sm_90a) kernels: warp-specialized wgmma GEMMs over TMA, row-wise kernels, attention."""
