"""Distribution audits: samples against the exact law, the output support, and the sampling structure.

* goodness of fit: a chi-square test of binned samples against the law's cell probabilities (atoms are cells
  of their own; cells with expected count below 5 are merged), which, unlike KS, is valid for the mixed laws
  of sampled mechanisms and can be accumulated chunk by chunk;
* support: no sample outside the law's support;
* structure of sampled mechanisms (ldp-ge C2, lpgnn C2): exactly k non-zero coordinates in every report, and
  every coordinate included with frequency k/d (chi-square over the d coordinates).
"""
from __future__ import annotations

import math

import numpy as np
from scipy import stats

from .moments import MAX_COORDINATES, probe_vector
from ... import streams
from ..kernel.result import CheckResult, Status
from ..kernel.sampling import Announce, Draws, Plan
from ..kernel.stats import bonferroni_reject

#: Interval cells per law in the goodness-of-fit test.
GOF_CELLS = 200


def law_cells(law) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(atoms, interval edges, probabilities of atoms then intervals) partitioning the law's mass."""
    atoms, atom_probs = law.atoms
    probs = [atom_probs]
    edges = np.empty(0)
    if law.continuous_mass > 1e-15:
        lo, hi = law.support
        if math.isfinite(lo) and math.isfinite(hi):
            edges = np.unique(np.concatenate([np.linspace(lo, hi, GOF_CELLS + 1), law.breakpoints]))
            edges = edges[(edges >= lo) & (edges <= hi)]
        else:
            qs = np.linspace(0.0, 1.0, GOF_CELLS + 1)[1:-1]
            edges = np.unique(np.concatenate([[-math.inf, math.inf], law.continuous_quantiles(qs)]))
        cum = np.asarray(law.cdf(edges), dtype=float)
        probs.append(np.maximum(np.diff(cum) - law.atom_mass_between(edges), 0.0))
    return atoms, edges, np.concatenate(probs)


def cell_counts(values: np.ndarray, atoms: np.ndarray, edges: np.ndarray) -> tuple[np.ndarray, int]:
    """Counts per cell (atoms first) and the number of values that fall in no cell (outside the support)."""
    values = np.asarray(values, dtype=float)
    if atoms.size:  # atoms are sorted and distinct (np.unique in the laws)
        pos = np.clip(np.searchsorted(atoms, values), 0, atoms.size - 1)
        is_atom = atoms[pos] == values
        atom_counts = np.bincount(pos[is_atom], minlength=atoms.size).astype(np.int64)
    else:
        is_atom = np.zeros(values.shape, dtype=bool)
        atom_counts = np.zeros(0, dtype=np.int64)
    rest = values[~is_atom]
    if edges.size:
        idx = np.searchsorted(edges, rest, side="right") - 1
        idx = np.where(rest == edges[-1], edges.size - 2, idx)  # the support's right end belongs to the last cell
        valid = (idx >= 0) & (idx < edges.size - 1)
        interval_counts = np.bincount(idx[valid], minlength=edges.size - 1)
        outside = int(np.count_nonzero(~valid))
    else:
        interval_counts = np.zeros(0, dtype=np.int64)
        outside = int(rest.size)
    return np.concatenate([atom_counts, interval_counts]), outside


def chi_square(counts: np.ndarray, probs: np.ndarray) -> tuple[float, float, int]:
    """Pearson chi-square of counts against probabilities, merging adjacent cells until each expects >= 5."""
    n = counts.sum()
    expected = probs * n
    merged_c, merged_e, acc_c, acc_e = [], [], 0, 0.0
    for c, e in zip(counts, expected):
        acc_c, acc_e = acc_c + c, acc_e + e
        if acc_e >= 5.0:
            merged_c.append(acc_c)
            merged_e.append(acc_e)
            acc_c, acc_e = 0, 0.0
    if merged_c:
        merged_c[-1] += acc_c
        merged_e[-1] += acc_e
    if len(merged_c) < 2:
        return 0.0, 1.0, 0
    c, e = np.array(merged_c, dtype=float), np.array(merged_e)
    e *= c.sum() / e.sum()
    statistic, p = stats.chisquare(c, e)
    return float(statistic), float(p), len(c) - 1


class _CellReducer:
    """Picklable chunk reducer: cell counts for each tested coordinate, out-of-support counts, structure."""

    def __init__(self, mechanism, x, cells):
        self.mechanism, self.x, self.cells = mechanism, x, cells

    def __call__(self, size, rng):
        m = self.mechanism
        if m.sampling is not None:
            reports = np.asarray(m.sample(self.x, size, rng), dtype=np.float64)
            nonzero = reports != 0
            structure = [np.bincount(nonzero.sum(axis=1), minlength=m.d + 1), nonzero.sum(axis=0)]
            columns = [reports[:, j] for j in range(len(self.cells))]
        else:
            structure = []
            columns = [np.asarray(m.sample(self.x, size, rng), dtype=np.float64).reshape(size)]
        counted = [cell_counts(col, atoms, edges) for col, (atoms, edges) in zip(columns, self.cells)]
        return _Counts([c for c, _ in counted], sum(o for _, o in counted), structure)


class _Counts:
    def __init__(self, per_column, outside, structure):
        self.per_column, self.outside, self.structure = per_column, outside, structure

    def __add__(self, other):
        return _Counts([a + b for a, b in zip(self.per_column, other.per_column)], self.outside + other.outside,
                       [a + b for a, b in zip(self.structure, other.structure)])


def distribution_plan(mechanism, n: int, seed: int, alpha: float) -> Plan:
    """Goodness of fit, support and sampling structure (module docstring): a sampling plan (``sampling.Plan``, one
    stream per tested input, announcing its n draws per input) returning the rows."""
    ref = mechanism.reference
    if mechanism.sampling is not None:
        x = probe_vector(mechanism)
        tested = list(range(min(mechanism.d, MAX_COORDINATES)))
        jobs = [(x, [mechanism.law(x[j]) for j in tested], [f"coordinate {j} (x={x[j]:.3g})" for j in tested])]
    else:
        jobs = [(v, [mechanism.law(v)], [f"x={v:.3g}"]) for v in mechanism.audit_inputs]
    families = 3 if mechanism.sampling is not None else 2
    share = alpha / families
    p_values, labels, outside, dofs, structure = [], [], 0, [], None
    cells_of = [[law_cells(law) for law in laws] for _, laws, _ in jobs]
    yield Announce(n * len(jobs))
    totals = yield [Draws(_CellReducer(mechanism, x, [(a, e) for a, e, _ in cells]), n, seed,
                          streams.DISTRIBUTION.key(i))
                    for i, ((x, _, _), cells) in enumerate(zip(jobs, cells_of))]
    for (_, _, names), cells, total in zip(jobs, cells_of, totals):
        for counts, (_, _, probs), name in zip(total.per_column, cells, names):
            _, p, dof = chi_square(counts, probs)
            p_values.append(p)
            dofs.append(dof)
            labels.append(name)
        outside += total.outside
        structure = total.structure or structure
    tests = len(p_values)
    worst = int(np.argmin(p_values))
    fit_failed = bool(bonferroni_reject(p_values, share).any())
    results = [
        CheckResult("distribution.fit", f"{ref}: samples follow the exact law", Status.FAIL if fit_failed else Status.PASS,
                    p_values[worst], "min p", p_value=p_values[worst], threshold=share / tests, n=n, seed=seed,
                    alpha=share, explanation=(f"chi-square at {labels[worst]} ({dofs[worst]} dof): p = {p_values[worst]:.3g}"
                                              + (" -- samples do not follow the claimed law" if fit_failed else
                                                 f" over {tests} tests")),
                    details={"p_values": p_values}),
        CheckResult("distribution.support", f"{ref}: outputs stay in the law's support",
                    Status.FAIL if outside else Status.PASS, float(outside), "outside", threshold=0.0,
                    n=n * len(jobs), seed=seed,
                    explanation=f"{outside} output(s) outside the support" if outside else "every output lies in the support"),
    ]
    if mechanism.sampling is not None:
        results.append(_structure(mechanism, structure, n, seed, share))
    return results


def _structure(mechanism, structure, n, seed, alpha) -> CheckResult:
    """Exactly k non-zeros per report and inclusion frequency k/d per coordinate (chi-square, d - 1 dof)."""
    per_row, per_column = structure
    k, d = mechanism.k, mechanism.d
    wrong_rows = int(per_row.sum() - per_row[k])
    ref = mechanism.reference
    p = stats.chisquare(per_column, np.full(d, per_column.sum() / d)).pvalue if d > 1 and k < d else 1.0
    failed = wrong_rows > 0 or p < alpha
    if wrong_rows:
        finding = f"{wrong_rows} of {n} reports do not have exactly k={k} non-zero coordinates"
    else:
        finding = f"every report has exactly k={k} non-zeros; inclusion frequencies chi-square p = {p:.3g}"
        if p < alpha:
            finding += f" -- coordinates are not included with frequency k/d = {k / d:.3g}"
    return CheckResult("structure.sampling", f"{ref}: exactly k of d coordinates, uniformly (ldp-ge C2, lpgnn C2)",
                       Status.FAIL if failed else Status.PASS, float(wrong_rows), "rows with != k non-zeros",
                       p_value=float(p), threshold=0.0, n=n, seed=seed, alpha=alpha, explanation=finding,
                       details={"mean_nonzeros": float(np.dot(np.arange(per_row.size), per_row) / per_row.sum())})
