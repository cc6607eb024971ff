"""Torch helpers for stacked runs: sparse operators applied to every run in one product, row softmax and SELU.

Tensors of a batch carry the runs as leading axes, (..., n, w). Every helper here keeps runs apart, and keeps
each run's arithmetic the same whatever its batch mates: a run alone and the same run in any stack must give the
same bits, on every CPU (DESIGN.md, "Statistical tests in CI"). Two things break that on x86 unless the code
avoids them, and the helpers here do:

- a kernel picked by the operand's shape. MKL chooses its sparse and dense products by the width of the dense
  operand (and the CPU's code path, ``MKL_CBWR``), so the same column summed inside a wide product of many runs
  and alone comes out in a different order. :func:`spmm` therefore uses torch's own CSR kernel, which sums each
  row's entries in stored order and treats every column alike, whatever the width;
- an elementwise op whose vector body and scalar tail round differently. A run's slab of a stacked tensor moves
  between the two with its position in the stack. torch's SELU, ELU, sigmoid and softplus do; +, -, x, /, sqrt,
  min, max, and exp, expm1 and log (vectorised tails) do not. :func:`selu` is written with the latter only.
"""
from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
import torch


def torch_csr(matrix: sp.spmatrix, device) -> torch.Tensor:
    """A scipy sparse matrix as a float32 torch CSR tensor on ``device``."""
    csr = sp.csr_matrix(matrix)
    csr.sort_indices()
    with warnings.catch_warnings():  # torch calls its CSR support "beta"; the products are checked in the tests
        warnings.simplefilter("ignore", UserWarning)
        return torch.sparse_csr_tensor(torch.from_numpy(csr.indptr.astype(np.int64)),
                                       torch.from_numpy(csr.indices.astype(np.int64)),
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


def spmm(matrix: torch.Tensor, dense: torch.Tensor) -> torch.Tensor:
    """``matrix @ dense`` for a torch CSR ``matrix`` and a dense (n, w) ``dense``, column by column in one order.

    On CPU this is torch's own row kernel (``reduce="sum"``): output (i, j) is the sum of row i's stored entries
    times column j, added in stored order, the same arithmetic for every column and every width. MKL's product
    (``torch.sparse.mm``'s default) picks its kernel by w, so a column's bits would depend on the columns beside
    it. It is also 1.5-3x faster on the stacked widths (n x 256 on PubMed: 7.5 ms against 21.7 ms, one thread).
    CUDA has no such kernel: there the product is cuSPARSE's, and runs agree within a tolerance only."""
    if dense.device.type == "cpu":
        return torch.sparse.mm(matrix, dense, reduce="sum")
    return torch.sparse.mm(matrix, dense)


def _columns(matrix: torch.Tensor, h: torch.Tensor) -> torch.Tensor:
    n, w, lead = h.shape[-2], h.shape[-1], h.shape[:-2]
    out = spmm(matrix, h.movedim(-2, 0).reshape(n, -1)).reshape(n, *lead, w).movedim(0, -2)
    return out.contiguous()  # one memory layout whatever the batch size: reductions then sum in one order


class _SparseProduct(torch.autograd.Function):
    @staticmethod
    def forward(ctx, operator, h):
        ctx.operator = operator
        return _columns(operator.forward, h)

    @staticmethod
    def backward(ctx, grad):
        return None, _columns(ctx.operator.backward, grad.contiguous())


def sparse_columns(operator, h: torch.Tensor) -> torch.Tensor:
    """``M @ h`` for every leading slice of ``h`` (..., n, w) in ONE sparse product over an (n, runs * w) matrix.
    ``operator``: a :class:`SparseOperator` (differentiable through its stored transpose) or a torch sparse
    tensor (no gradient needed)."""
    if isinstance(operator, SparseOperator):
        return _SparseProduct.apply(operator, h)
    return _columns(operator, h)


#: SELU's constants (Klambauer et al. 2017, Eq. 14), torch's values.
SELU_ALPHA, SELU_SCALE = 1.6732632423543772848170429916717, 1.0507009873554804934193349852946


def selu(x: torch.Tensor) -> torch.Tensor:
    """SELU, scale * (max(x, 0) + alpha * expm1(min(x, 0))), from ops that round alike in their vector body and
    scalar tail (``torch.selu`` does not: 2.9 % of float32 inputs differ by one ulp between the two). Within one
    ulp of ``torch.selu``; the gradient is alpha * scale * exp(x) below zero and scale above, never NaN."""
    return SELU_SCALE * (torch.relu(x) + SELU_ALPHA * torch.expm1(x.clamp(max=0.0)))


def softmax(logits: torch.Tensor) -> torch.Tensor:
    """Softmax over the last axis, written out: torch's kernel is ~4x slower on rows of a few classes."""
    e = torch.exp(logits - logits.amax(-1, keepdim=True))
    return e / e.sum(-1, keepdim=True)


def log_softmax(logits: torch.Tensor) -> torch.Tensor:
    shifted = logits - logits.amax(-1, keepdim=True)
    return shifted - torch.log(torch.exp(shifted).sum(-1, keepdim=True))
