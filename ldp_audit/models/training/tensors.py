"""Torch helpers for stacked runs: a fixed matrix times every run's operand, row softmax and SELU.

Tensors of a batch carry the runs as leading axes, (..., n, w). Every helper here keeps runs apart, and keeps
each run's arithmetic the same whatever its batch mates: a run alone and the same run in any stack must give the
same bits, on every CPU (DESIGN.md, "Statistical tests in CI"). Two things break that on x86 unless the code
avoids them, and the helpers here do:

- a kernel picked by the operand's shape. MKL chooses its dense (GEMM) and sparse product kernels by the sizes of
  the operands and the CPU's code path (``MKL_CBWR``), so a run's column summed inside one wide product over the
  runs side by side comes out in another order than alone (measured on an AVX-512 CPU: sparse products differ at
  every stacked width, GEMMs on MKL's AVX2 path in stacks of 5 runs or more). :func:`left_product` therefore
  makes one call per run, on the run's own operand at the allocator's alignment: the very call it makes alone;
- an elementwise op whose vector body and scalar tail round differently. A run's slab of a stacked tensor moves
  between the two with its position in the stack. torch's SELU, ELU, sigmoid and softplus do; +, -, x, /, sqrt,
  min, max, and exp, expm1 and log (vectorised tails) do not. :func:`selu` is written with the latter only.

On CUDA, where cuBLAS and cuSPARSE pick kernels by shape too and no identity is promised (GPU runs agree within a
tolerance), :func:`left_product` keeps one wide product over the runs side by side: it is the faster there.
"""
from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
import torch


def torch_csr(matrix: sp.spmatrix, device) -> torch.Tensor:
    """A scipy sparse matrix as a float32 torch CSR tensor on ``device``, with 32-bit indices where they fit: MKL's
    sparse product takes those as they are and converts 64-bit ones on every call (15 % of a Cora step)."""
    csr = sp.csr_matrix(matrix)
    csr.sort_indices()
    index = np.int32 if max(csr.nnz, *csr.shape) < np.iinfo(np.int32).max else np.int64
    with warnings.catch_warnings():  # torch calls its CSR support "beta"; the products are checked in the tests
        warnings.simplefilter("ignore", UserWarning)
        return torch.sparse_csr_tensor(torch.from_numpy(csr.indptr.astype(index)),
                                       torch.from_numpy(csr.indices.astype(index)),
                                       torch.from_numpy(csr.data.astype(np.float32)), csr.shape, device=device)


@dataclass(eq=False)
class SparseOperator:
    """A sparse n x n matrix (a propagation step, GCN's Â, a neighbour mean) and its transpose for the backward
    pass, both torch CSR on the device."""

    forward: torch.Tensor
    backward: torch.Tensor

    @property
    def nnz(self) -> int:
        """Stored entries of the matrix: one product on n x w costs nnz * w multiply-adds."""
        return int(self.forward.values().numel())

    @classmethod
    def of(cls, matrix: sp.spmatrix, device) -> "SparseOperator":
        csr = sp.csr_matrix(matrix)
        return cls(torch_csr(csr, device), torch_csr(csr.T, device))


#: Byte alignment of torch's CPU allocations. A run's operand is handed to MKL at this alignment whatever its place
#: in a stack (a slab of a stacked tensor starts wherever the runs before it end).
ALIGNMENT = 64


def _own(operand: torch.Tensor) -> torch.Tensor:
    """``operand`` contiguous and at :data:`ALIGNMENT`, as a lone run's own tensor is (a copy only when needed)."""
    operand = operand.contiguous()
    return operand if operand.data_ptr() % ALIGNMENT == 0 else operand.clone()


def left_product(matrix: torch.Tensor, stacked: torch.Tensor) -> torch.Tensor:
    """``matrix @ s`` for every run's slab s of ``stacked`` (runs, k, w): (runs, m, w). ``matrix``: dense, or
    torch CSR (MKL's sparse product). On CPU one call per run with the run's own operand (the call a lone run
    makes, so its bits never depend on the stack), written straight into its slab of the result; on CUDA one call
    over an (k, runs w) matrix."""
    runs, k, w = stacked.shape
    if stacked.device.type == "cpu":
        out = torch.empty(runs, matrix.shape[0], w, dtype=stacked.dtype)
        for run, operand in enumerate(stacked.unbind(0)):  # beta = 0: the slab's old contents are never read
            torch.addmm(out[run], matrix, _own(operand), beta=0, out=out[run])
        return out
    wide = stacked.permute(1, 0, 2).reshape(k, runs * w)
    return torch.mm(matrix, wide).reshape(-1, runs, w).permute(1, 0, 2).contiguous()


def _columns(matrix: torch.Tensor, h: torch.Tensor) -> torch.Tensor:
    """:func:`left_product` for ``h`` with any leading axes (..., n, w)."""
    return left_product(matrix, h.reshape(-1, *h.shape[-2:])).reshape(*h.shape[:-2], -1, h.shape[-1])


class _SparseProduct(torch.autograd.Function):
    @staticmethod
    def forward(ctx, operator, h):
        ctx.operator = operator
        return _columns(operator.forward, h)

    @staticmethod
    def backward(ctx, grad):
        return None, _columns(ctx.operator.backward, grad.contiguous())


def sparse_columns(operator, h: torch.Tensor) -> torch.Tensor:
    """``M @ h`` for every leading slice of ``h`` (..., n, w) (:func:`left_product`). ``operator``: a
    :class:`SparseOperator` (differentiable through its stored transpose) or a torch CSR tensor (no gradient
    needed)."""
    if isinstance(operator, SparseOperator):
        return _SparseProduct.apply(operator, h)
    return _columns(operator, h)


#: SELU's constants (Klambauer et al. 2017, Eq. 14), torch's values.
SELU_ALPHA, SELU_SCALE = 1.6732632423543772848170429916717, 1.0507009873554804934193349852946


class _Selu(torch.autograd.Function):
    """SELU from ops that round alike in vector body and scalar tail, none of them on a boolean mask (``where`` and
    comparisons run 4-15x slower than arithmetic on this torch's CPU kernels): out = scale * max(x, 0) + scale *
    alpha * expm1(min(x, 0)). The gradient is read off the output, whose sign is x's: scale where out > 0, and
    scale * alpha * e^x = min(out, 0) + scale * alpha elsewhere."""

    @staticmethod
    def forward(ctx, x):
        out = torch.expm1(x.clamp(max=0.0)).mul_(SELU_SCALE * SELU_ALPHA).add_(torch.relu(x).mul_(SELU_SCALE))
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, grad):
        out, = ctx.saved_tensors
        positive = out.sign().clamp_(min=0.0)  # 1 where x > 0, else 0
        slope = out.clamp(max=0.0).add_(SELU_SCALE * SELU_ALPHA).sub_(positive.mul_(SELU_SCALE * (SELU_ALPHA - 1)))
        return grad * slope


def selu(x: torch.Tensor) -> torch.Tensor:
    """SELU, scale * x above zero and scale * alpha * expm1(x) below (``torch.selu`` rounds its scalar tail
    differently from its vector body: 2.9 % of float32 inputs differ by one ulp between the two). Equal to
    ``torch.selu`` on a million normal draws; its gradient within 2 ulp."""
    return _Selu.apply(x)


def softmax(logits: torch.Tensor) -> torch.Tensor:
    """Softmax over the last axis, written out: torch's kernel is ~4x slower on rows of a few classes."""
    e = torch.exp(logits - logits.amax(-1, keepdim=True))
    return e / e.sum(-1, keepdim=True)


def log_softmax(logits: torch.Tensor) -> torch.Tensor:
    shifted = logits - logits.amax(-1, keepdim=True)
    return shifted - torch.log(torch.exp(shifted).sum(-1, keepdim=True))
