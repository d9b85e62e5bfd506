"""Compile, cache and launch pyptx kernels.

PTX is compiled through the driver JIT, nvJitLink or ptxas into an on-disk cubin cache and
launched from PyTorch (eager, ``torch.compile``, CUDA graphs) or JAX (``jax.jit``). Importing
this package touches neither the GPU nor the optional torch/jax frameworks.
"""

__all__: list[str] = []
