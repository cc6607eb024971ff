"""SE-PrivGEmb (Zhang, Ye, Hu, arXiv 2501.03451v1) as printed: formulas with their equation numbers, settings
and reported tables. Nothing here is corrected; the corrections live in ``ldp_audit.models.se_privgemb`` and
``ldp_audit.audits.claims.se_privgemb``, which compare against these printed forms.

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

#: Tables II-V (StrucEqu at eps = 3.5, mean, sd), one hyper-parameter varied at a time, the others at their final
#: values (B = 128, eta = 0.1, C = 2, k = 5). Each row lists the six columns in :data:`SWEEP_COLUMNS` order.
SWEEP_COLUMNS = (("deepwalk", "Chameleon"), ("deepwalk", "Power"), ("deepwalk", "Arxiv"),
                 ("degree", "Chameleon"), ("degree", "Power"), ("degree", "Arxiv"))
#: table id -> (caption, hyper-parameter, {value: six (mean, sd) pairs}).
SWEEP_TABLES = {
    "table2": ("Table II (StrucEqu vs B, eps = 3.5)", "B", {
        32: ((0.4281, 0.0529), (0.1549, 0.0196), (0.3375, 0.0640), (0.2611, 0.0714), (0.1127, 0.0124), (0.1394, 0.0815)),
        64: ((0.4599, 0.0530), (0.1815, 0.0327), (0.3376, 0.0871), (0.3084, 0.0172), (0.1216, 0.0581), (0.1625, 0.0722)),
        128: ((0.4507, 0.0341), (0.2522, 0.0543), (0.3457, 0.0303), (0.3661, 0.0092), (0.2322, 0.0476), (0.2341, 0.0193)),
        256: ((0.3701, 0.0181), (0.2053, 0.0670), (0.3326, 0.0564), (0.3956, 0.0090), (0.1595, 0.0418), (0.2260, 0.0292)),
        512: ((0.3293, 0.0324), (0.2462, 0.0508), (0.3411, 0.0031), (0.3710, 0.0834), (0.1833, 0.0303), (0.2204, 0.0656)),
        1024: ((0.2780, 0.0406), (0.2520, 0.0157), (0.3416, 0.0161), (0.3967, 0.0535), (0.1773, 0.0317), (0.2251, 0.0509)),
    }),
    "table3": ("Table III (StrucEqu vs eta, eps = 3.5)", "eta", {
        0.01: ((0.0703, 0.0378), (0.0515, 0.0180), (0.0436, 0.0121), (0.0409, 0.0148), (0.0266, 0.0331), (0.0122, 0.0292)),
        0.05: ((0.4290, 0.0045), (0.1756, 0.0241), (0.3989, 0.0311), (0.3221, 0.0419), (0.1524, 0.0531), (0.1876, 0.0445)),
        0.1: ((0.4507, 0.0341), (0.2522, 0.0543), (0.3457, 0.0303), (0.3661, 0.0092), (0.2322, 0.0476), (0.2341, 0.0193)),
        0.15: ((0.4573, 0.0072), (0.2431, 0.0198), (0.3938, 0.0204), (0.3503, 0.0632), (0.1742, 0.0598), (0.1725, 0.0320)),
        0.2: ((0.4152, 0.0470), (0.1912, 0.0070), (0.4282, 0.0285), (0.3169, 0.0529), (0.1372, 0.0723), (0.2189, 0.0445)),
        0.25: ((0.4564, 0.0112), (0.2478, 0.0546), (0.4353, 0.0198), (0.3656, 0.0552), (0.1435, 0.0595), (0.2335, 0.0464)),
        0.3: ((0.4524, 0.0262), (0.2213, 0.0342), (0.4011, 0.0154), (0.2628, 0.0471), (0.1229, 0.0085), (0.2086, 0.0765)),
    }),
    "table4": ("Table IV (StrucEqu vs C, eps = 3.5)", "C", {
        1.0: ((0.3248, 0.0595), (0.2216, 0.0281), (0.4266, 0.0588), (0.2485, 0.0757), (0.2030, 0.0846), (0.2206, 0.0858)),
        2.0: ((0.4507, 0.0341), (0.2522, 0.0543), (0.3457, 0.0303), (0.3661, 0.0092), (0.2322, 0.0476), (0.2341, 0.0193)),
        3.0: ((0.4319, 0.0475), (0.1774, 0.0407), (0.3514, 0.0219), (0.2907, 0.0921), (0.1140, 0.0308), (0.1819, 0.0767)),
        4.0: ((0.4368, 0.0214), (0.1972, 0.0414), (0.3555, 0.0142), (0.3116, 0.0750), (0.1820, 0.0541), (0.2107, 0.0450)),
        5.0: ((0.4079, 0.0172), (0.1652, 0.0345), (0.3671, 0.0352), (0.3384, 0.0892), (0.1731, 0.0260), (0.1464, 0.0531)),
        6.0: ((0.3719, 0.0328), (0.1710, 0.0557), (0.3476, 0.0305), (0.3136, 0.0699), (0.1763, 0.0482), (0.2143, 0.0269)),
    }),
    "table5": ("Table V (StrucEqu vs k, eps = 3.5)", "k", {
        1: ((0.4024, 0.0249), (0.2036, 0.0766), (0.3423, 0.0228), (0.2286, 0.0121), (0.1425, 0.0279), (0.2203, 0.0587)),
        2: ((0.4121, 0.0339), (0.2033, 0.0249), (0.3500, 0.0450), (0.2338, 0.0450), (0.1542, 0.0202), (0.2229, 0.0673)),
        3: ((0.4325, 0.0304), (0.1913, 0.0132), (0.3126, 0.0447), (0.2406, 0.0531), (0.0839, 0.0752), (0.2068, 0.0654)),
        4: ((0.4190, 0.0670), (0.2441, 0.0177), (0.3801, 0.0421), (0.2371, 0.0717), (0.1987, 0.0714), (0.1993, 0.0462)),
        5: ((0.4507, 0.0341), (0.2522, 0.0543), (0.3457, 0.0303), (0.3661, 0.0092), (0.2322, 0.0476), (0.2341, 0.0193)),
        6: ((0.4053, 0.0501), (0.2108, 0.0619), (0.3599, 0.0456), (0.3824, 0.0574), (0.1762, 0.0183), (0.2232, 0.0076)),
        7: ((0.3916, 0.0692), (0.2010, 0.0565), (0.4247, 0.0391), (0.3710, 0.0375), (0.1354, 0.0441), (0.2492, 0.0432)),
    }),
}
#: Table VI columns in order: (proximity, perturbation) with perturbation "all" = naive Eq. 6, "nonzero" = Eq. 9.
TABLE_VI_COLUMNS = (("deepwalk", "all"), ("deepwalk", "nonzero"), ("degree", "all"), ("degree", "nonzero"))
#: Runs behind every printed mean +- sd (Section V: "each result is the mean of 10 runs"; spec U15).
RUNS_PRINTED = 10
#: The paper's tables and figures with results, by the ids ``reproduce se-privgemb --tables`` takes.
ARTEFACTS = ("table2", "table3", "table4", "table5", "table6", "fig3", "fig4")

#: Fig. 3 read-offs (StrucEqu vs eps, spec §8.8, +-0.01): non-private SE-GEmb as one value, SE-PrivGEmb and the
#: best baseline (ProGAP) as (value at eps = 0.5, value at eps = 3.5).
FIG3 = {
    "Chameleon": {"SE-GEmb_DW": 0.595, "SE-GEmb_Deg": 0.475, "SE-PrivGEmb_DW": (0.395, 0.45),
                  "SE-PrivGEmb_Deg": (0.29, 0.37), "ProGAP": (0.21, 0.27)},
    "PPI": {"SE-GEmb_DW": 0.70, "SE-GEmb_Deg": 0.635, "SE-PrivGEmb_DW": (0.555, 0.585),
            "SE-PrivGEmb_Deg": (0.505, 0.575), "ProGAP": (0.345, 0.415)},
    "Power": {"SE-GEmb_DW": 0.32, "SE-GEmb_Deg": 0.25, "SE-PrivGEmb_DW": (0.195, 0.255),
              "SE-PrivGEmb_Deg": (0.09, 0.235), "ProGAP": (0.08, 0.135)},
    "Arxiv": {"SE-GEmb_DW": 0.435, "SE-GEmb_Deg": 0.338, "SE-PrivGEmb_DW": (0.278, 0.345),
              "SE-PrivGEmb_Deg": (0.165, 0.235), "ProGAP": (0.135, 0.19)},
    "BlogCatalog": {"SE-GEmb_DW": 0.655, "SE-GEmb_Deg": 0.605, "SE-PrivGEmb_DW": (0.54, 0.575),
                    "SE-PrivGEmb_Deg": (0.485, 0.555), "ProGAP": (0.32, 0.365)},
    "DBLP": {"SE-GEmb_DW": 0.355, "SE-GEmb_Deg": 0.27, "SE-PrivGEmb_DW": (0.213, 0.263),
             "SE-PrivGEmb_Deg": (0.15, 0.188), "ProGAP": (0.115, 0.145)},
}
#: Fig. 4 read-offs (link-prediction AUC vs eps, spec §8.8, +-0.01); "baselines" is the range they span.
FIG4 = {
    "Chameleon": {"SE-GEmb_DW": 0.552, "SE-GEmb_Deg": 0.526, "SE-PrivGEmb_DW": (0.509, 0.517),
                  "SE-PrivGEmb_Deg": (0.509, 0.516), "baselines": (0.49, 0.517)},
    "Power": {"SE-GEmb_DW": 0.550, "SE-GEmb_Deg": 0.544, "SE-PrivGEmb_DW": (0.505, 0.531),
              "SE-PrivGEmb_Deg": (0.50, 0.533), "baselines": (0.50, 0.523)},
    "Arxiv": {"SE-GEmb_DW": 0.526, "SE-GEmb_Deg": 0.535, "SE-PrivGEmb_DW": (0.508, 0.519),
              "SE-PrivGEmb_Deg": (0.505, 0.517), "baselines": (0.484, 0.516)},
}
#: Reading accuracy of the figure read-offs.
FIGURE_READING = 0.01
#: The eps grid of Figs. 3-4 (Section V-B).
FIGURE_EPS = (0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 3.5)
#: The four DP baselines of Figs. 3-4 (Section V-A), other papers' systems.
BASELINES = {"DPGGAN": "Yang et al., IJCAI 2021 (link-level DP, moments accountant)",
             "DPGVAE": "Yang et al., IJCAI 2021 (link-level DP, moments accountant)",
             "GAP": "Sajadmanesh et al., USENIX Security 2023 (aggregation perturbation)",
             "ProGAP": "Sajadmanesh & Gatica-Perez, WSDM 2024 (progressive aggregation perturbation)"}

#: Fig. 3 read-offs of SE-PrivGEmb_DW (eps = 0.5, eps = 3.5) and non-private SE-GEmb_DW, +-0.01.
FIG3_DW = {name: (*values["SE-PrivGEmb_DW"], values["SE-GEmb_DW"]) for name, values in FIG3.items()
           if name != "DBLP"}


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
