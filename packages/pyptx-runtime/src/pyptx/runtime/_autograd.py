"""``differentiable_kernel``: a forward and a backward kernel as one autograd function."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pyptx.dsl.kernel import Kernel

from ._errors import ArgumentError

__all__ = ["differentiable_kernel"]

# The kernels of every differentiable_kernel, by a string id. The autograd.Function below
# captures only that id: under torch.compile, Dynamo rebuilds the Function's methods and can
# carry plain constants into them, not arbitrary objects such as a Kernel.
_PAIRS: dict[str, tuple[Kernel, Kernel, dict[str, Any]]] = {}


def differentiable_kernel(
    forward_kernel: Kernel,
    backward_kernel: Kernel,
    *,
    save_outputs: bool = False,
    **kwargs: Any,
) -> Callable[..., Any]:
    """Wrap a forward and a backward pyptx kernel into a function torch autograd can train.

    The returned function takes the forward kernel's arguments (its ``in_specs`` tensors,
    then its scalars) and returns what the forward kernel returns. On ``.backward()`` the
    backward kernel is called with, in order:

    - one gradient per forward output (made contiguous),
    - the forward's input tensors,
    - the forward's outputs, when ``save_outputs=True`` (softmax-style backward passes),
    - the forward's scalars;

    and must return one gradient per forward input tensor (one array alone, several as a
    tuple), in input order. Scalars get no gradient. Both kernels are called with
    ``**kwargs`` (template parameters, dims). Works eagerly, under ``torch.compile`` and on
    the emulator (CPU tensors).

    Args:
        forward_kernel: computes the outputs.
        backward_kernel: computes the input gradients.
        save_outputs: pass the forward outputs to the backward kernel too.
        **kwargs: keywords for both kernels.

    Returns:
        A function ``f(*tensors, *scalars)``.

    Raises:
        ArgumentError: (at call time) the backward kernel returns the wrong number of
            gradients.
    """
    import torch

    n_in = len(forward_kernel.in_specs)
    keywords = dict(kwargs)
    pair = f"{forward_kernel.name}/{backward_kernel.name}@{id(keywords):x}"
    _PAIRS[pair] = (forward_kernel, backward_kernel, keywords)  # keeps `keywords` (its id) alive

    class _Function(torch.autograd.Function):
        @staticmethod
        def forward(*args: Any) -> Any:
            forward, _, keywords = _PAIRS[pair]
            return forward(*args, **keywords)

        @staticmethod
        def setup_context(ctx: Any, inputs: tuple[Any, ...], output: Any) -> None:
            tensors, scalars = inputs[:n_in], inputs[n_in:]
            outputs = output if isinstance(output, tuple) else (output,)
            ctx.save_for_backward(*tensors, *(outputs if save_outputs else ()))
            ctx.scalars = scalars

        @staticmethod
        def backward(ctx: Any, *grads: Any) -> Any:
            forward, backward, keywords = _PAIRS[pair]
            saved = ctx.saved_tensors
            grads = tuple(g.contiguous() for g in grads)
            result = backward(*grads, *saved, *ctx.scalars, **keywords)
            grads_in = result if isinstance(result, tuple) else (result,)
            if len(grads_in) != n_in:
                raise ArgumentError(
                    f"{backward.name} returned {len(grads_in)} gradients for the "
                    f"{n_in} inputs of {forward.name}"
                )
            return (*grads_in, *(None for _ in ctx.scalars))

    def apply(*args: Any) -> Any:
        return _Function.apply(*args)

    apply.__name__ = f"{forward_kernel.name}_with_grad"
    apply.__doc__ = (
        f"{forward_kernel.name} with gradients from {backward_kernel.name} "
        "(see pyptx.differentiable_kernel)."
    )
    return apply
