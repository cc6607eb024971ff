"""Torch helpers for stacked runs: sparse operators applied to every run in one product, and row softmax.

Tensors of a batch carry the runs as leading axes, (..., n, w). Every helper here keeps runs apart: a product's
output column depends only on its own input column, and reductions run along one run's rows.
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


def _columns(matrix: torch.Tensor, h: torch.Tensor) -> torch.Tensor:
    n, w, lead = h.shape[-2], h.shape[-1], h.shape[:-2]
    out = torch.sparse.mm(matrix, h.movedim(-2, 0).reshape(n, -1)).reshape(n, *lead, w).movedim(0, -2)
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


def softmax(logits: torch.Tensor) -> torch.Tensor:
    """Softmax over the last axis, written out: torch's kernel is ~4x slower on rows of a few classes."""
    e = torch.exp(logits - logits.amax(-1, keepdim=True))
    return e / e.sum(-1, keepdim=True)


def log_softmax(logits: torch.Tensor) -> torch.Tensor:
    shifted = logits - logits.amax(-1, keepdim=True)
    return shifted - torch.log(torch.exp(shifted).sum(-1, keepdim=True))
