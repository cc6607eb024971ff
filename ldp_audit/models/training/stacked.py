"""Backbones of many runs at once: stacked parameters (one leading run axis), one sparse product for all runs.

A batch of runs with one model shape (``RunConfig.batch_key``) trains as one stacked model. Each parameter has
the runs as its first axis and is initialised run by run exactly as the one-run torch module is (same seed, same
torch initialisers), then stacked. The layers are the maths of ``modules.py`` written for stacked tensors:

- the first layer of every backbone is linear in the run's fixed node features, behind the run's KProp / FlexProp
  steps (lpgnn A1, ppgnn A5): P^K X' W = P^K (X' W). A sparse report (LPGNN's multi-bit estimate is a constant
  plus m non-zeros per row, lpgnn Eq. 4) is mostly computed in that order: it is multiplied as a sparse matrix,
  propagation costs K sparse products on n x h instead of n x d, and runs that share the report (every K and
  objective of one seed) share it. Where the K sparse steps per pass cost more than one dense n x d x h product
  (long K on a graph with many edges per feature: PubMed at K >= 16), and for every dense report with steps to
  take (its n x d x h product is paid per pass in either order), the propagated features P^K X' are computed once
  per run and each pass is one dense product (:func:`features_first`: decided by the run's config and dataset
  only, never by its batch mates);
- GCNConv is Â H W + b with Â = D^-1/2 (A + I) D^-1/2 (``KProp(1, "gcn", self_loops=True)``), SAGEConv is
  mean_N(i)(H) W_l + b + H W_r (``KProp(1, "mean")``), BatchNorm uses each run's own statistics.

A run's numbers never depend on its batch mates, by construction rather than by luck of the CPU: every product
a run needs, dense or sparse, is one call with the run's own operand (:func:`tensors.left_product`), the call it
makes alone; MKL picks its kernels by the operands' sizes, so one product over the runs side by side would sum a
run's columns in another order (measured: every stacked width of a sparse product on an AVX-512 CPU, GEMMs of 5
or more runs on MKL's AVX2 path). The second layer is a batched GEMM of per-run shape, and every elementwise op
rounds alike in vector body and scalar tail. So on CPU with one thread a run is bit-identical alone and in any
stack, at any position, under every MKL code path and torch CPU capability (tests/models/test_batched_training.py,
test_cpu_code_paths.py); on CUDA, where the products stay wide, within a tolerance.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
import torch

from ..propagation import KProp
from .tensors import SparseOperator, left_product, selu, sparse_columns, torch_csr

#: A report whose entries are one value except for at most this share is stored as value + sparse matrix.
SPARSE_SHARE = 0.05
#: Cost of one multiply-add of a CPU sparse (CSR) x dense product relative to one of a dense x dense product, one
#: thread, in training: on PubMed a propagation step (forward and backward, n x 16) took 1.15 ms per run and epoch
#: and the dense n x 500 x 16 products 18 ms, 7x more per multiply-add; K = 16 was where multi-bit runs (sparse
#: reports) cost the same in both orders.
SPARSE_COST = 7.0
#: Backbones with a stacked form; the others (GAT) train one run at a time.
STACKED_MODELS = ("lpgnn", "gcn", "sage")
BATCH_NORM_MOMENTUM, BATCH_NORM_EPS = 0.1, 1e-5


def sparse_form(x: np.ndarray) -> tuple[float, sp.csr_matrix] | None:
    """(shift, X' - shift as CSR) when X' is one value except for at most :data:`SPARSE_SHARE` of its entries
    (LPGNN's multi-bit estimate: m non-zeros per row, lpgnn Eq. 4), else None (a dense report)."""
    values, counts = np.unique(x[:64], return_counts=True)
    shift = float(values[counts.argmax()])
    rest = x - shift
    if np.count_nonzero(rest) <= SPARSE_SHARE * rest.size:
        return shift, sp.csr_matrix(rest)
    return None


@dataclass(eq=False)
class Report:
    """A run's node features X' (n, d) as the first layer multiplies them: dense (with its transpose, contiguous,
    for the backward pass), or ``shift`` + sparse (with the sparse transpose)."""

    dense: torch.Tensor | None
    dense_t: torch.Tensor | None = None
    shift: float = 0.0
    sparse: torch.Tensor | None = None
    sparse_t: torch.Tensor | None = None

    @classmethod
    def of(cls, x: np.ndarray, device) -> "Report":
        sparse = sparse_form(x)
        if sparse is not None:
            shift, rest = sparse
            return cls(None, None, shift, torch_csr(rest, device), torch_csr(rest.T, device))
        return cls.dense_of(torch.as_tensor(np.asarray(x, dtype=np.float32), device=device))

    @classmethod
    def dense_of(cls, x: torch.Tensor) -> "Report":
        """A dense report; on CPU with a contiguous copy of X'^T (MKL's GEMM on the transposed view took 1.6-4x
        longer per run: 27.5 ms against 17.0 on Cora, 212 against 55 on CiteSeer), on CUDA the view."""
        return cls(x, x.T.contiguous() if x.device.type == "cpu" else x.T)

    def times(self, w: torch.Tensor) -> torch.Tensor:
        """X' W for stacked weights ``w`` (runs, d, h) sharing this report, (runs, n, h)."""
        if self.sparse is None:
            return left_product(self.dense, w)
        out = left_product(self.sparse, w)
        return out + self.shift * w.sum(1, keepdim=True) if self.shift else out

    def transpose_times(self, g: torch.Tensor) -> torch.Tensor:
        """X'^T G for stacked ``g`` (runs, n, h), (runs, d, h)."""
        if self.sparse is None:
            return left_product(self.dense_t, g)
        out = left_product(self.sparse_t, g)
        return out + self.shift * g.sum(1, keepdim=True) if self.shift else out

    @classmethod
    def propagated(cls, x: np.ndarray, chain: list, device) -> "Report":
        """C X' for the operator ``chain`` C (applied first to last), dense: the features-first order."""
        out = torch.as_tensor(np.asarray(x, dtype=np.float32), device=device)
        for operator in chain:
            out = torch.sparse.mm(operator.forward, out)
        return cls.dense_of(out)


def features_first(chain: list, num_nodes: int, width: int, dense_report: bool) -> bool:
    """Whether a first-layer term C X' W trains on precomputed features (C X') W rather than as C (X' W).

    Per pass, the features-first order pays one dense n x d x h product per run (its C X' is paid once per run).
    The product order pays one sparse product on n x h per step of the chain (nnz_s h multiply-adds at
    :data:`SPARSE_COST` each) plus the report's own product X' W: for a sparse report next to nothing, for a dense
    one the same n x d x h as features first (one GEMM per run, never shared: see the module docstring). So a
    dense report with a chain always goes first, and a sparse one when SPARSE_COST * sum_s nnz_s >= n d. Only the
    run's config (its chain, its report's kind) and the dataset decide: the same config trains the same way
    alone and in any batch."""
    if not chain:
        return False
    return dense_report or SPARSE_COST * sum(op.nnz for op in chain) >= num_nodes * width


def _through(chain: list, h: torch.Tensor, transpose: bool) -> torch.Tensor:
    """Every run of ``h`` (runs, n, w) through the same ``chain`` (reversed and transposed for the backward
    pass), one :func:`tensors.left_product` per step."""
    for operator in (chain[::-1] if transpose else chain):
        h = left_product(operator.backward if transpose else operator.forward, h)
    return h


def apply_chains(h: torch.Tensor, chains: list, transpose: bool = False) -> torch.Tensor:
    """Run r's slice of ``h`` (runs, n, w) through its list of :class:`SparseOperator` (reversed and transposed for
    the backward pass). Runs with the same chain (one KProp and K, the common case) go through it together (on
    CUDA one product per step for all of them); FlexProp runs, whose weights are each run's levels, one by one."""
    classes: dict = {}
    for run, chain in enumerate(chains):
        classes.setdefault(tuple(map(id, chain)), (chain, []))[1].append(run)
    if len(classes) == 1:
        return _through(chains[0], h, transpose)
    slices = [None] * h.shape[0]
    for chain, members in classes.values():
        part = _through(chain, h.index_select(0, torch.as_tensor(members, device=h.device)), transpose)
        for run, value in zip(members, part.unbind(0)):
            slices[run] = value
    return torch.stack(slices)


@dataclass(eq=False)
class FirstLayer:
    """sum_t C_t,r X'_t,r W_t,r for every run r: terms t (one weight each, e.g. SAGE's W_l and W_r), and per term a
    report per run (shared objects where runs share one) and an operator chain per run. A term in the product
    order has the run's report X' and its chain C; one in the features-first order (:func:`features_first`) has
    the precomputed C X' as its report and an empty chain.

    ``output`` computes the product once per parameter value: the evaluation pass after an optimizer step and
    the next epoch's training pass see the same weights, so the second reuses the first's product."""

    terms: list  # per term: (reports, chains): a Report and a list of SparseOperator per run
    _cached: tuple = (None, None)

    @staticmethod
    def _per_report(reports: list, product: str, stacked_input: torch.Tensor) -> torch.Tensor:
        """``Report.times`` (or ``transpose_times``) for every run, one product per distinct report."""
        groups: dict = {}
        for run, report in enumerate(reports):
            groups.setdefault(id(report), (report, []))[1].append(run)
        slices = [None] * len(reports)
        for report, runs in groups.values():
            part = stacked_input.index_select(0, torch.as_tensor(runs, device=stacked_input.device))
            for run, value in zip(runs, getattr(report, product)(part).unbind(0)):
                slices[run] = value
        return torch.stack(slices)

    def _product(self, weights: list) -> torch.Tensor:
        terms = [apply_chains(self._per_report(reports, "times", w), chains)
                 for w, (reports, chains) in zip(weights, self.terms)]
        return sum(terms[1:], terms[0])

    def _weight_grads(self, grad: torch.Tensor) -> list:
        return [self._per_report(reports, "transpose_times", apply_chains(grad, chains, transpose=True))
                for reports, chains in self.terms]

    def output(self, weights: list) -> torch.Tensor:
        versions = tuple(w._version for w in weights)
        if self._cached[0] != versions:
            with torch.no_grad():
                self._cached = (versions, self._product(weights))
        return _FixedInputProduct.apply(self, self._cached[1], *weights)


class _FixedInputProduct(torch.autograd.Function):
    """Returns a precomputed first-layer product; its backward is X'^T C^T G for each weight."""

    @staticmethod
    def forward(ctx, layer, product, *weights):
        ctx.layer = layer
        return product.view_as(product)

    @staticmethod
    def backward(ctx, grad):
        return (None, None, *ctx.layer._weight_grads(grad.contiguous()))


def _dropout(h: torch.Tensor, p: float, generators: list) -> torch.Tensor:
    """Inverted dropout with each run's mask drawn from its own generator."""
    if p == 0.0:
        return h
    masks = torch.stack([torch.empty(h.shape[1:], device=h.device).bernoulli_(1 - p, generator=g)
                         for g in generators])
    return h * masks / (1 - p)


class StackedBackbone:
    """A stacked backbone: ``parameters`` (each with the runs as axis 0) and ``logits(training)`` (runs, n, c)."""

    def __init__(self, model: str, first: FirstLayer, params: dict, graph_operators: dict, dropout: float,
                 generators: list):
        self.model, self.first, self.params = model, first, params
        self.ops = graph_operators
        self.dropout, self.generators = dropout, generators
        runs, hidden = params["b1"].shape
        if model == "lpgnn":
            self.running_mean = torch.zeros(runs, 1, hidden, device=params["b1"].device)
            self.running_var = torch.ones(runs, 1, hidden, device=params["b1"].device)

    def parameters(self) -> list:
        return list(self.params.values())

    def _first_weights(self) -> list:
        return [self.params["w1"], self.params["r1"]] if self.model == "sage" else [self.params["w1"]]

    def _batch_norm(self, z, training: bool):
        if training:  # the variance written out: Tensor.var over the node axis is 4x slower here
            mean = z.mean(1, keepdim=True)
            var = ((z - mean) ** 2).mean(1, keepdim=True)
            with torch.no_grad():
                n = z.shape[1]
                self.running_mean.mul_(1 - BATCH_NORM_MOMENTUM).add_(BATCH_NORM_MOMENTUM * mean)
                self.running_var.mul_(1 - BATCH_NORM_MOMENTUM).add_(BATCH_NORM_MOMENTUM * var * n / (n - 1))
        else:
            mean, var = self.running_mean, self.running_var
        scaled = (z - mean) / torch.sqrt(var + BATCH_NORM_EPS)
        return scaled * self.params["gamma"].unsqueeze(1) + self.params["beta"].unsqueeze(1)

    def logits(self, training: bool) -> torch.Tensor:
        p = self.params
        z = self.first.output(self._first_weights()) + p["b1"].unsqueeze(1)
        if self.model == "lpgnn":
            z = self._batch_norm(z, training)
        h = selu(z)
        if training:
            h = _dropout(h, self.dropout, self.generators)
        if self.model == "sage":
            return (torch.bmm(sparse_columns(self.ops["mean"], h), p["w2"]) + p["b2"].unsqueeze(1)
                    + torch.bmm(h, p["r2"]))
        return sparse_columns(self.ops["gcn"], torch.bmm(h, p["w2"])) + p["b2"].unsqueeze(1)


def graph_operators(adjacency, device) -> dict:
    """Â of GCNConv (with self-loops) and the mean over neighbours of SAGEConv, as :class:`SparseOperator`."""
    return {"gcn": SparseOperator.of(KProp(1, aggregator="gcn", self_loops=True).step_matrix(adjacency), device),
            "mean": SparseOperator.of(KProp(1, aggregator="mean").step_matrix(adjacency), device)}


def module_parameters(model: str, module) -> dict:
    """The parameters of one run's torch module (``modules.build``) in the stacked layout (weights as d x h)."""
    if model == "lpgnn":
        return {"w1": module.first.weight.T, "b1": module.first.bias, "gamma": module.norm.weight,
                "beta": module.norm.bias, "w2": module.second.lin.weight.T, "b2": module.second.bias}
    if model == "gcn":
        return {"w1": module.first.lin.weight.T, "b1": module.first.bias, "w2": module.second.lin.weight.T,
                "b2": module.second.bias}
    return {"w1": module.first.lin_l.weight.T, "r1": module.first.lin_r.weight.T, "b1": module.first.lin_l.bias,
            "w2": module.second.lin_l.weight.T, "r2": module.second.lin_r.weight.T, "b2": module.second.lin_l.bias}


def stack_parameters(per_run: list) -> dict:
    """Stack the runs' parameter dicts into leaf tensors with the runs as axis 0."""
    return {name: torch.stack([p[name].detach() for p in per_run]).contiguous().requires_grad_(True)
            for name in per_run[0]}
