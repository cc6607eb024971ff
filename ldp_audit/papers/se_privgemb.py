"""SE-PrivGEmb (Zhang, Ye, Hu, arXiv 2501.03451v1) as printed: formulas with their equation numbers, settings
and reported tables. Nothing here is corrected; the corrections live in ``ldp_audit.models.seprivgemb`` and
``ldp_audit.audits.seprivgemb_claims``, which compare against these printed forms.

All functions are plain numpy; torch is never imported here.
"""
from __future__ import annotations

import numpy as np
from scipy.special import gammaln, logsumexp

#: Hyper-parameters of Section V ("final" values) and the privacy settings of Section V-A.
SETTINGS = {
    "sigma": 5.0, "delta": 1e-5, "B": 128, "C": 2.0, "k": 5, "r": 128, "eta": 0.1,
    "steps_strucequ": 200, "steps_lp": 2000, "eps_targets": (0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 3.5),
}

#: Edge counts the paper uses in gamma = B/|E| (Table I; training graph = 90% split for link prediction).
EDGES_FULL = {"Chameleon": 31_421, "PPI": 76_584, "Power": 6_594, "Arxiv": 14_496, "BlogCatalog": 333_983,
              "DBLP": 4_354_534}
EDGES_LP_TRAIN = {"Chameleon": 28_279, "PPI": 68_926, "Power": 5_935, "Arxiv": 13_046, "BlogCatalog": 300_585,
                  "DBLP": 3_919_081}

#: Table VI (StrucEqu, mean, sd): (dataset, eps) -> {"DW naive", "DW non-zero", "Deg naive", "Deg non-zero"}.
TABLE_VI = {
    ("Chameleon", 0.5): ((0.1169, 0.0010), (0.3927, 0.0341), (0.1119, 0.0315), (0.2914, 0.0188)),
    ("Chameleon", 2.0): ((0.1192, 0.0281), (0.4177, 0.0359), (0.1144, 0.0094), (0.3392, 0.0367)),
    ("Chameleon", 3.5): ((0.1224, 0.0159), (0.4507, 0.0341), (0.1258, 0.0330), (0.3661, 0.0092)),
    ("Power", 0.5): ((0.0857, 0.0164), (0.1945, 0.0567), (0.0638, 0.0013), (0.0877, 0.0261)),
    ("Power", 2.0): ((0.0788, 0.0227), (0.2003, 0.0330), (0.0852, 0.0094), (0.1542, 0.0231)),
    ("Power", 3.5): ((0.0796, 0.0160), (0.2522, 0.0543), (0.0833, 0.0151), (0.2322, 0.0476)),
    ("Arxiv", 0.5): ((0.0888, 0.0033), (0.1770, 0.0756), (0.0779, 0.0267), (0.1629, 0.0381)),
    ("Arxiv", 2.0): ((0.0844, 0.0263), (0.2199, 0.0171), (0.0611, 0.0130), (0.2112, 0.0768)),
    ("Arxiv", 3.5): ((0.0848, 0.0086), (0.3457, 0.0303), (0.0784, 0.0168), (0.2341, 0.0193)),
}

#: Fig. 3 read-offs (StrucEqu of SE-PrivGEmb_DW at eps = 0.5 -> 3.5, non-private SE-GEmb_DW), +-0.01.
FIG3_DW = {"Chameleon": (0.395, 0.45, 0.595), "Power": (0.195, 0.255, 0.32), "Arxiv": (0.278, 0.345, 0.435),
           "PPI": (0.555, 0.585, 0.70), "BlogCatalog": (0.54, 0.575, 0.655)}


def clip(g: np.ndarray, C: float) -> np.ndarray:
    """Eq. 3: Clip(g) = g / max(1, ||g||_2 / C), applied to the last axis."""
    norm = np.linalg.norm(g, axis=-1, keepdims=True)
    return g / np.maximum(1.0, norm / C)


def theorem3_optimum(p: np.ndarray, k: int, c: float) -> np.ndarray:
    """Eq. 10 (Theorem 3): the optimal logit x_ij = log(p_ij / (k c)); -inf where p_ij = 0."""
    with np.errstate(divide="ignore"):
        return np.log(np.asarray(p, dtype=float) / (k * c))


def eq15_optimum(p: np.ndarray, k: int) -> np.ndarray:
    """Eq. 15 (prior work, degree-based negatives) read with d_i := d^P_i and D = sum p (erratum E6)."""
    p = np.asarray(p, dtype=float)
    d = p.sum(axis=1)
    with np.errstate(divide="ignore"):
        return np.log(p * p.sum() / np.outer(d, d)) - np.log(k)


def theorem5_step_rdp(alpha, sensitivity: float, sigma: float):
    """Proof of Theorem 5: per-step RDP eps(alpha) = alpha S^2 / (2 sigma^2), as printed (erratum E7)."""
    return np.asarray(alpha, dtype=float) * sensitivity ** 2 / (2.0 * sigma ** 2)


def theorem4_subsampled_rdp(q: float, sigma: float, orders) -> np.ndarray:
    """Theorem 4 (Wang, Balle, Kasiviswanathan 2019, Thm 9) for the Gaussian base mechanism, per step.

    Base curve eps(j) = j / (2 sigma^2), eps(inf) = inf, so both min{2, (e^eps(inf) - 1)^j} factors are 2:
    eps'(a) = log(1 + q^2 C(a,2) min{4(e^{1/s^2} - 1), 2 e^{1/s^2}} + 2 sum_{j=3}^a q^j C(a,j) e^{j(j-1)/(2 s^2)})
    / (a - 1). Defined for integer orders a >= 2 only; evaluated in log space.
    """
    orders = np.atleast_1d(np.asarray(orders, dtype=float))
    if np.any(orders < 2) or np.any(orders != np.round(orders)):
        raise ValueError("orders must be integers >= 2 for Theorem 4 (paper-literal bound)")
    inv = 1.0 / sigma ** 2
    log_second = np.log(min(4.0 * np.expm1(inv), 2.0 * np.exp(inv)))
    a = orders[:, None]
    j = np.arange(2, int(orders.max()) + 1, dtype=float)[None, :]
    valid = j <= a
    log_comb = gammaln(a + 1) - gammaln(j + 1) - gammaln(np.where(valid, a - j, 0.0) + 1)
    terms = j * np.log(q) + log_comb + np.where(j == 2, log_second, np.log(2.0) + j * (j - 1) * inv / 2.0)
    terms = np.where(valid, terms, -np.inf)
    return np.logaddexp(0.0, logsumexp(terms, axis=1)) / (orders - 1.0)


def theorem1_epsilon(rdp, orders, delta: float) -> tuple[float, float]:
    """Theorem 1 (Mironov 2017, Prop. 3): eps = min_a rdp(a) + log(1/delta)/(a - 1); returns (eps, order)."""
    rdp = np.asarray(rdp, dtype=float)
    orders = np.asarray(orders, dtype=float)
    eps = rdp + np.log(1.0 / delta) / (orders - 1.0)
    best = int(np.argmin(eps))
    return float(eps[best]), float(orders[best])
