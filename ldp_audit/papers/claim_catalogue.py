"""Which spec ids each paper has, and how claims rows name the ids they check (``ldp-audit claims --coverage``).

Naming convention (for every claims row, including rows added later): a row's ``name`` starts with the spec
id(s) it checks -- ``"C14"``, ``"C6 (E3)"``, ``"C2-C5"``, ``"C4/C5 MC"``, ``"E9-E11.node-level"``,
``"C17.nonzero-beats-naive"``. Rows named after a module (``"ldp-ge.pi.r=0"``) give their ids in the claim
text instead (``"ldp-ge Eq. 2/17, C11"``); errata a row documents may also be cited in its claim text
(``"Alg. 1 realises Thm 3 (E2)"``). "C2-C5" is a range, "C4/C5" two ids. :func:`row_ids` reads them, so new
rows show up in the coverage table as soon as they are registered in ``claims.PROVIDERS``.

``SPEC_IDS`` is transcribed from the specs by :func:`parse_spec_ids` (a test re-derives it from the spec files
when they are present); ``NEEDS`` says what an id without a row is waiting for.
"""
from __future__ import annotations

import re

_ID = r"[CEMAB]\d+"
_HEAD = re.compile(rf"^(?:#{{2,4}}\s+|[*-]\s+\*\*|\*\*|\|\s*)({_ID})(?![\w])(.*)$")
_IN_TEXT = re.compile(rf"(?<![A-Za-z0-9_])({_ID})(?:\s*(-|/)\s*({_ID}|\d+))?(?![\w])")


def parse_spec_ids(text: str) -> list[tuple[str, str]]:
    """(id, the spec's words for it) for every id a spec defines in a heading, a bold lead or a table row, in
    order of first appearance. The words are the rest of that line without markup, cut to 160 characters (400
    for errata, whose INFO rows quote them: what is wrong and why it matters)."""
    found: dict[str, str] = {}
    for line in text.splitlines():
        match = _HEAD.match(line.strip())
        if match and match.group(1) not in found:
            words = re.sub(r"[*|`]+", " ", match.group(2).replace("\\|", "\x00")).replace("\x00", "|")
            words = re.sub(r"\s+", " ", words).strip(" .:—-")
            limit = 400 if match.group(1).startswith("E") else 160
            found[match.group(1)] = words[:limit - 3] + "..." if len(words) > limit else words
    return list(found.items())


def expand(first: str, last: str | None, joiner: str = "-") -> list[str]:
    """("C2", "C5") -> C2..C5; ("C4", "C5", "/") -> C4, C5; ("C4", None) -> C4; "C2-5" reads as C2-C5."""
    if last is None:
        return [first]
    if last.isdigit():
        last = first[0] + last
    if joiner != "-" or first[0] != last[0]:
        return [first, last]
    low, high = int(first[1:]), int(last[1:])
    return [f"{first[0]}{i}" for i in range(low, high + 1)] if low <= high else [first, last]


def ids_in(text: str) -> list[str]:
    """Every spec id written in ``text``, ranges ("C2-C5", "C4/C5", "E9-E11") expanded."""
    out: list[str] = []
    for first, joiner, last in _IN_TEXT.findall(text):
        out += [i for i in expand(first, last or None, joiner) if i not in out]
    return out


def row_ids(name: str, claim: str) -> list[str]:
    """The spec ids a row checks: those written in its name (else in its claim text), plus the errata (E ids)
    its claim text cites, e.g. claim "Alg. 1 realises Thm 3 (E2)"."""
    ids = ids_in(name) or ids_in(claim)
    return ids + [i for i in ids_in(claim) if i.startswith("E") and i not in ids]


_PIPELINE = "needs: pipeline (training on the datasets)"
_ATTACKS = "needs: pipeline (attacks; added with the attack audits)"
_TEXT = "text-only erratum: nothing to compute"
_REPRODUCE_LDP_GE = "hours of training: rows of `reproduce ldp-ge --full`, not of claims"

#: paper -> spec id -> what it needs before a row can check it (or why no row computes anything). Ids with a
#: row and no entry here are fully checked; ids with neither show "a check (not written yet)".
NEEDS: dict[str, dict[str, str]] = {
    "ldp-ge": {
        "C21": _REPRODUCE_LDP_GE + " (Table III cells, C21a-C21e rows)",
        "C22": _REPRODUCE_LDP_GE + " (Fig. 2 cells, quoted gaps)", "C23": _REPRODUCE_LDP_GE + " (k sweep)",
        "E3": _TEXT, "E4": _TEXT, "E8": _TEXT + " (b at eps/k is what the mechanism uses; C2 checks it)",
        "E9": _TEXT, "E10": _TEXT,
        "E13": "concerns the released code, not the paper", "E14": _PIPELINE + " (link prediction)",
        "E15": _TEXT,
    },
    "lpgnn": {
        "C11": _ATTACKS, "C12": _ATTACKS, "C14": _PIPELINE + ", Table 3", "C16": _PIPELINE + " (Drop targets)",
        "E1": _TEXT + " (the conclusion holds: C1 checks it exactly)", "E5": _TEXT + " (C7 checks any K)",
        "E9": _TEXT, "E10": _TEXT, "E11": _TEXT,
        "E12": _PIPELINE + " (arithmetic on Table 3)", "E13": _PIPELINE, "E14": _PIPELINE, "E15": _PIPELINE,
    },
    "ppgnn": {
        "C9": _ATTACKS, "C10": "the joint (x, tau) reading is C11's (attack level-leak)", "C11": _ATTACKS,
        "C16": "the row counts operations; wall-clock in benchmarks/flexprop.py (not gating)",
        "C17": "reduced by default (Cora, one K, 5 runs); the spec's 4-of-6 rule reads stored reproduce results",
        "C18": _ATTACKS, "C19": _PIPELINE + ", figure-only: rows of `reproduce ppgnn` (K and eps trends)",
        "E4": _ATTACKS, "E5": _ATTACKS, "E6": _ATTACKS, "E7": _TEXT + " (the model uses 2^(tau-1) eps)",
        "E9": _TEXT, "E11": _TEXT, "E12": _TEXT, "E13": _TEXT,
        "E15": _TEXT, "E17": _ATTACKS + " (GM/LP variance ratio)", "E18": _TEXT,
        "E19": _TEXT,
    },
    "se-privgemb": {
        "C17": "reduced by default; --full runs the power analysis' number of trainings",
        "C18": "needs: the four DP baselines (DPGGAN, DPGVAE, GAP, ProGAP) for half of the claim",
        "E3": _TEXT, "E4": _TEXT, "E5": _TEXT + " (c enters the node-level accounting, E9-E11)", "E6": _TEXT,
        "E16": "needs: dataset (the Arxiv graph the paper describes)", "E17": _PIPELINE + " (link prediction)",
        "E18": _TEXT,
    },
}


#: paper -> (spec id, the spec's words) for every id its spec defines, transcribed by parse_spec_ids.
SPEC_IDS: dict[str, tuple[tuple[str, str], ...]] = {
    "ldp-ge": (
        ('M1',
         'Extended Square Wave, one dimension (Algorithm 1, Eq. 9)'),
        ('M2',
         'HDS (Algorithm 2)'),
        ('M3',
         'Laplace (LP)'),
        ('M4',
         'Piecewise mechanism, one dimension (Eq. 3)'),
        ('M5',
         'Piecewise mechanism, d dimensions (Eqs. 4-5)'),
        ('M6',
         'Multi-bit mechanism, one dimension (Eq. 6, corrected)'),
        ('M7',
         'Multi-bit mechanism, d dimensions (Eqs. 7-8)'),
        ('M8',
         'Original Square Wave on [0,1] (reference only)'),
        ('A1',
         'Feature normalisation'),
        ('A2',
         'Personalised PageRank operator (Eqs. 2 and 17)'),
        ('A3',
         'Backward push propagation (Algorithm 3, corrected; see E2)'),
        ('A4',
         'Overall protocol (Algorithm 4)'),
        ('A5',
         'Node classification'),
        ('A6',
         'Link prediction'),
        ('C1',
         'Algorithm 1 is ε-LDP (first half of Theorem 1)'),
        ('C2',
         'HDS is ε-LDP (Theorem 1)'),
        ('C3',
         'Output distribution of Algorithm 1 (Eq. 9)'),
        ('C4',
         'Lemma 1, mean (Eqs. 10, 12-14)'),
        ('C5',
         'Lemma 1, variance (Eqs. 11, 15-16)'),
        ('C6',
         'Asymptotics used in the proofs (Eqs. 20, 21, 31, 32)'),
        ('C7',
         'Laplace baseline'),
        ('C8',
         'Piecewise baseline (Eqs. 3-5)'),
        ('C9',
         'Multi-bit baseline (Eqs. 6-8)'),
        ('C10',
         'Figure 1: worst-case 1-D noise variance versus ε'),
        ('C11',
         'Properties of Π (Eq. 2 / 17)'),
        ('C12',
         'Backward push correctness and error bound'),
        ('C13',
         'Post-processing / data flow'),
        ('C14',
         'Theorem 2 (HDS error bound), explicit form'),
        ('C15',
         'Lemma 2 (Laplace is sub-exponential)'),
        ('C16',
         'Theorem 3 (Laplace error bound), explicit form'),
        ('C17',
         'Theorem 4 (PM and MB error bounds), explicit form'),
        ('C18',
         'Rates in ε (the O(·) content of Theorems 2-4)'),
        ('C19',
         'Interpretation check (informational, not a pass/fail of the paper)'),
        ('C20',
         'Dataset statistics'),
        ('C21',
         'Table III and results-text claims (reproduction targets)'),
        ('C22',
         'Figure-only node-classification claims (ε ∈ {0.01, 0.1, 1, 2, 3, 5, ∞})'),
        ('C23',
         'Parameter analysis (figure-only), k ∈ {1, 3, 5, 10, 20, 30, 50}, ε ∈ {1, 2, 3}'),
        ('E1',
         '(Eq. 6, MB pmf). The two printed probabilities sum to e^ε/(e^ε + 1), not 1 (e.g. 0.8808 at ε = '
         '2, any x): the first term of Pr[c = −1] must be e^ε/(e^ε + 1), not (e^ε − 1)/(e^ε + 1). With the '
         'printed formula Pr[c = −1 x = 1] = 0 while Pr[c = −1 x = −1] = (e^ε − 1)/(e^ε + 1), so any '
         'implementation that uses it literally (e.g. "−1 with the printed probability, else +1" or '
         'renormalising) is not ε-...'),
        ('E2',
         '(Algorithm 3, line 4). The residue sent to neighbour u must be (1−α)·R(v,j)/ N(u) , not / N(v) . '
         'With the printed version the algorithm converges to Eq. 2 with r replaced by r + 1 (checked to '
         '1e-9), so it never equals Eq. 17; on karate (α = 0.1, r = 0.5) its error stays ≈ 1.9 for r_max = '
         '1e-2 and 1e-4, while the corrected version has error 2.3e-2 and 2.0e-4 (bounded by d_v^r r_max). '
         'The release...'),
        ('E3',
         '(text after Algorithm 3). "R = D^{−r}A" should read R = D^{−r}X̃ (as in line 1 of Algorithm 3)'),
        ('E4',
         '(proof of Theorem 2). "as per Equation (17), Var[x̃_{u,j}] = O(k/d)" should cite Eq. (11) (Lemma '
         '1)'),
        ('E5',
         '(proofs of Theorems 2 and 4). "Σ_u Π(v,u) = 1" holds only for r = 0 (or graphs whose connected '
         'components are regular); for r = 1 Π is column-stochastic instead. Karate, α = 0.1: row sums '
         'range over [0.4847, 1.7435] at r = 0.5 and [0.2898, 3.5178] at r = 1. Consequently z_{v,j} ≤ 1 '
         'fails (max z = 1.2545 for node 33 at r = 0.5 in the C14 setting) and the bias term of Theorem 2 '
         'must be bounded by...'),
        ('E6',
         '(meaning of Theorem 2 vs Theorems 3-4). The improvement "from O(d log(d/δ)/ε) to O(log(d/δ))" '
         'compares a biased estimator shrunk by C ≈ ε/(2d) with unbiased ones; the zero estimator achieves '
         'O(1) too, and the debiased HDS error is of the same order as PM (C19). The theorem is correct as '
         'stated; the utility comparison it is used for is not like-for-like'),
        ('E7',
         '(Figure 1 normalisation). The plotted Square-Wave curve must be the raw, biased output variance '
         'of Algorithm 1 on [−1,1] at x = 1, compared with the unbiased variances of LP/PM/MB. Only this '
         'reading matches the text (PM crossing 3.684). The MSE reading crosses PM at 3.18, the debiased '
         'reading is never below PM, and the [0,1] original SW crosses PM only at 7.01. "Smaller than LP '
         'and MB for ε ≤ 5...'),
        ('E8',
         '(Lemma 1 and Algorithm 2 output domain). b, p, q must be evaluated at ε/k; Lemma 1 writes b '
         'without argument (Eq. 20 makes the ε/k explicit), and the output domain of Algorithm 2 is '
         '[−1−b(ε/k), 1+b(ε/k)]^d'),
        ('E9',
         '(Theorem 2/3/4 statements). "Given δ > 0" should be δ ∈ (0, 1] (footnote 1); the bounds are '
         'meaningless for δ > 1'),
        ('E10',
         '(index range). Algorithm 3 iterates j ∈ {0, …, d−1}, the rest of the paper uses {1, …, d}'),
        ('E11',
         '(numerics of b). The closed form of b is numerically unusable for small ε/k in float64 (the '
         'experiments use ε = 0.01 with k up to 50, i.e. ε/k = 2e-4, where it still has ≈ 4e-9 relative '
         'error, but it degrades quickly below ~1e-5). Use the series / e^{−ε} forms (§3 M1)'),
        ('E12',
         '(unspecified corner cases). D^{−r} and N(v) are undefined for isolated nodes; define d_v^{±r} := '
         '1 and no pushes to neighbours (gives Π(v,·) = α·e_v). Self-loops are not added (the released '
         'push code does not add them)'),
        ('E13',
         '(normalisation). The paper assumes public feature ranges; the released code instead min-max '
         "scales each column over all users' raw data (and maps HDS/MB/LP outputs back to the raw scale, "
         'with unsampled coordinates set to raw-scale 0, which is the value −1 for binary features rather '
         'than the 0 of Algorithm 2). Data-dependent scaling is outside the LDP guarantee; the spec '
         'follows the paper (publi...'),
        ('E14',
         '(link-prediction classifier). The paper says "logistic regression" trained with a "pairwise '
         'objective loss"; the released scripts use a 2-3-layer MLP with sigmoid output on the Hadamard '
         'feature and the loss Σ(1 − (s⁺ − s⁻))² over (positive, random negative) pairs. Ambiguous; see §7 '
         'and §9'),
        ('E15',
         '(cosmetic). Table II/III spell "CITSEER"; Eq. 5 text "the variance of induced by"; PrivGE Figure '
         '1 caption reads "worse case noise variance"'),
    ),
    "lpgnn": (
        ('M1',
         'Multi-bit encoder (Algorithm 1, user side)'),
        ('M2',
         'Multi-bit rectifier (server side, Eq. 4)'),
        ('M3',
         'Choice of m (Prop. 3.4, Eq. 6)'),
        ('M4',
         'One-bit mechanism (1BM baseline)'),
        ('M5',
         'Analytic Gaussian mechanism (AGM baseline, RQ2)'),
        ('M6',
         'Linear aggregators'),
        ('A1',
         'KProp convolution (Algorithm 2)'),
        ('A2',
         'LPGNN training (Algorithm 3)'),
        ('A3',
         'Estimation-error metric (Eq. 10)'),
        ('C1',
         'Theorem 3.1: M1 is ε-LDP, and the bound is tight'),
        ('C2',
         'Sampling step of M1. Exactly m non-zeros in every output. Each coordinate is included with '
         'probability m/d and each pair with probability m(m−1)/(d(d−1)). Au...'),
        ('C3',
         'Lemma A.1 (moments of x ). E[x _i] = (m/d)τ_m(2u_i − 1), Var[x _i] = m/d − E[x _i]². MC: n = '
         '2·10^6 copies of one user vector with x_i = α + (β − α)(i−1)/(d−...'),
        ('C4',
         "Prop. 3.2 (unbiasedness of x'). Same design, testing mean(x'_i) − x_i. Verified: max z = 0.84, "
         '1.18, 2.02, 2.71 and 2.46 over the five configurations above (...'),
        ('C5',
         "Prop. 3.3 (variance of x'). Test the ratio s²/Var. Its relative standard error is √((κ − 1)/n), "
         'where κ = μ4/σ⁴ is the exact kurtosis of the three-point dist...'),
        ('C6',
         'Prop. 3.4 (optimal m). (i) Root of z = sinh(z)/2 is z = 2.1773189849653067, with f(z ) = '
         '3.432987770980829. (ii) The "paper" mode must reproduce ⌊ε/2.18⌋ cli...'),
        ('C7',
         'Corollary 3.5 (linear aggregation stays unbiased). For any fixed weight matrix W (mean, GCN, Â^K '
         "for any K), E[W X'] = W X. MC on a small non-bipartite graph..."),
        ('C8',
         'Prop. 3.6 (error versus neighbourhood size, mean aggregator). The seed states max_i ĥ_i − h_i = '
         'O(√(d log(d/δ)) / (ε√ N(v) )) with probability ≥ 1 − δ. This ...'),
        ('C9',
         'KProp error: exact variance (no theorem in the seed; the seed argues informally that larger K '
         "means a larger effective neighbourhood). For H = W X' with W = ..."),
        ('C10',
         'KProp effective neighbourhood. Define N_eff(v, K) = (Σ_u W_{vu} )² / Σ_u W_{vu}², with W = Â^K. '
         'Then Var[H_{v,i}] ≤ V_max·‖W_v‖_1²/N_eff(v, K), so the noise ...'),
        ('C11',
         'Corollary 3.7 (post-processing) and memoisation, checked structurally. (i) The server-side API '
         "takes only x (or x'), never raw x. (ii) Encoding the same user..."),
        ('C12',
         'Attribute-inference bound (consequence of C1). For a binary secret with uniform prior, any '
         "attacker's accuracy is ≤ e^ε/(1 + e^ε). Whole-vector secret x ∈ {α..."),
        ('C13',
         'RQ2 claims (figure-only in the seed). MAE ordering MBM < AGM (δ = 10^-4) < 1BM, and '
         'GCN-aggregator MAE < mean-aggregator MAE, for ε ∈ {0.1, 0.5, 1, 2}. Repro...'),
        ('C14',
         'Utility claims (Table 3 and Figs. 6–7). These are reproduction targets, not statistical '
         'identities. Tolerances are in §7.4'),
        ('E1',
         '(Theorem 3.1 proof, Eqs. 11–16): wrong factorisation, correct conclusion. The proof treats '
         'coordinates as independent and writes the per-coordinate ratio through Pr[M(x)_i ∈ {−1, 1}], '
         'which equals m/d and does not depend on x. It also ignores the dependence created by sampling '
         'without replacement. Correct argument: Pr[x = y x] = C(d,m)^{-1} ∏_{i∈supp(y)} Pr[t_i = '
         '(y_i+1)/2 x_i]. The sampling fa...'),
        ('E2',
         '(Eq. 4): unstated numerical requirements. Computing (e^{ε/m}+1)/(e^{ε/m}−1) naively loses '
         'precision for small ε (relative error −8.9·10^-5 at ε = 10^-12) and overflows for ε/m > 709. Use '
         'coth(ε/(2m)) = 1/tanh(ε/(2m)). Also, Algorithm 1 assumes x ∈ [α, β]^d: an input outside that '
         'range gives π_i ∉ [0, 1], which breaks both validity and LDP. Clip first'),
        ('E3',
         '(Prop. 3.4, Eq. 6): the integer rule is not the minimiser. ⌊ε/2.18⌋ always rounds down, but the '
         'worst-case variance is not symmetric around z . The true integer optimum switches from m = 1 to '
         'm = 2 at ε = 3.0571, not 4.36, and so on (M3 table). At ε = 4 (d = 1433, [0, 1]) the rule picks '
         'm = 1 (V_max = 385.48) while m = 2 gives 308.82, 24.8 % lower. The maximum excess is 33.6 % just '
         'below ε = 4....'),
        ('E4',
         "(Prop. 3.6, Eqs. 9 and 33–38): the stated rate drops the dominant term. Bernstein's inequality "
         'gives λ = O(√(V L/N) + M L/N) with L = log(d/δ), V = O(d/ε²), M = O(d/ε) (at m = 1, ε → 0). The '
         'proof keeps only the first term. The second term, d log(d/δ)/(εN), dominates whenever N < d '
         'log(d/δ), which is every real neighbourhood (Cora: d = 1433, mean degree 3.9). Corrected '
         'statement: max_i ĥ_i − h_...'),
        ('E5',
         '(Corollary 3.5 and Prop. 3.6 scope). Unbiasedness holds for any linear aggregation, KProp with '
         'any K included (composition of linear maps). Prop. 3.6 is proved only for the mean aggregator '
         'with one step; the seed\'s claim that it "can be extended to other AGGREGATE functions" is never '
         "proved. For a general weight row w the variance is Σ_u w_u² Var[x'_u] (C9)"),
        ('E6',
         "(unstated property). Coordinates of one user's x' are correlated: Cov = −(d−m)/(m(d−1))·(x_i − "
         'c)(x_j − c). This matters when computing the variance of linear functionals over coordinates '
         '(e.g. the first Linear layer). Verified by MC (M2)'),
        ('E7',
         "(KProp self-loop argument). The seed says removing self-loops stops the same node's noise from "
         'being counted several times. That is only true for the direct term: for K ≥ 2, returning walks '
         "bring v's own report back (on the C7 graph, node 0's own weight in Â² is 0.5). In the 1/N_eff "
         'proxy, self-loops help at K = 1 (0.2961 against 0.4145 without loops on the '
         'preferential-attachment graph) and hu...'),
        ('E8',
         '(RQ2, mean versus GCN aggregator). The two aggregators estimate different targets (row sums 1 '
         'and Σ_u 1/√(d_u d_v) respectively), so comparing their MAE does not compare like with like. In '
         'the sparse regime the MAE is about proportional to the L1 mass of the weights (C13). A '
         'scale-free comparison would use relative error, or normalise the GCN weights by their row sum'),
        ('E9',
         '(naming). Eq. 4 calls the rectifier "Enc(x )"; call it Rect. Algorithm 3 computes x\' inside the '
         'epoch loop, but it is deterministic and is computed once in practice'),
        ('E10',
         "(privacy scope of Corollary 3.7). The guarantee is ε-LDP for node features only . The seed's "
         'training uses raw labels, and the graph is public. Releasing the model (which the seed says '
         'needs no DP-SGD) can therefore leak labels and edges. The labels gap is closed in the CCS '
         'version by randomized response on labels (Part B). The experimental pipeline also normalises '
         'each feature by its min/max o...'),
        ('E11',
         '(RQ2 wording on (ε, δ)). The seed says (ε, δ)-LDP means ε-LDP "with probability at least 1 − δ". '
         'That reading is loose: (ε, δ)-DP is not equivalent to "probabilistic DP". Treat AGM as an (ε, δ) '
         'baseline only'),
        ('E12',
         '(RQ1 numbers). The text says the gain over the best fully-private baseline at ε = 0.1 is "around '
         '2.5 % on Github". Table 3 gives 85.9 − 84.0 = 1.9 points (2.3 % relative). Pubmed "over 19 %": '
         '82.1 − 62.4 = 19.7 points ✓. Cora loss "< 1 %": 85.0 − 84.6 = 0.4 ✓. Citeseer/Pubmed "4 to 6 %": '
         '5.3 and 4.9 points ✓'),
        ('E13',
         '(RQ4 inconsistency). The text says K is varied in {1, 2, 4} for Fig. 7 (bottom) and then reports '
         'gains "with K = 8". The authors\' notebook [code-seed] plots K ∈ {1, 4, 8}. Use {1, 4, 8}'),
        ('E14',
         "(Table 3 selection protocol; unstated). In the authors' notebook, the K reported for each "
         '(dataset, ε) is the one with the highest mean test accuracy over K ∈ {1, 2, 4, 8, 16, 32}. That '
         'is test-set selection and biases LPGNN upwards. Reimplementations should choose K by validation '
         'accuracy (or loss) and may report the test-selected number separately to compare with the paper'),
        ('E15',
         "(Table 3 red flag, not a proven error). LPGNN's score is flat in ε (e.g. Cora 84.6 for all of ε "
         '= 0.1, 0.5, 1, 2), although m = 1 for all four and the per-report bias factor tanh(ε/2) grows '
         '15-fold (0.050 → 0.762). This suggests most of the accuracy comes from graph structure after '
         'K-step propagation rather than from the private features. The fully-private baselines (GCN+RND, '
         'GCN+OHD) use a sin...'),
        ('B1',
         'Threat model additions'),
        ('B2',
         'M7 — Randomized response on labels'),
        ('B3',
         'A4 — Drop: label denoising with propagation (training objective)'),
        ('B4',
         'A5 — Model selection ("validation-based stopping")'),
        ('B5',
         'Other mechanisms in the CCS code'),
        ('B6',
         "Results printed in the authors' notebook ( results.ipynb , commit 02c60f1)"),
        ('B7',
         'Part B caveats and audits'),
        ('C15',
         'RR exactness and T (above)'),
        ('C16',
         "Drop target quality. On a graph where every neighbour shares v's label, the target "
         'argmax(Â^{K_y} Ŷ)_v at K_y = 1 is a weighted plurality of i.i.d. RR labels...'),
    ),
    "ppgnn": (
        ('M1',
         'Laplace mechanism (baseline "LP")'),
        ('M2',
         'Gaussian mechanism (baseline "GM")'),
        ('M3',
         '1-bit mechanism (baseline "1B")'),
        ('M4',
         'Multi-bit mechanism (baseline "MB", LPGNN)'),
        ('A1',
         'Local randomizer (Algorithm 1; Duchi et al.)'),
        ('A2',
         'Multi-dimensional Local Randomizer, MLR (Algorithm 2)'),
        ('A3',
         'Extended Square Wave, ESW (Eq. 6)'),
        ('A4',
         'Personalized Perturbation Mechanism, PPM (Algorithm 3)'),
        ('A5',
         'FlexProp (Algorithm 4, Eqs. 9–12)'),
        ('A6',
         'KProp (LPGNN baseline)'),
        ('A7',
         'PPM (Laplace inside the MLR wrapper; Fig. 4 right)'),
        ('A8',
         'Privacy levels and budget assignment'),
        ('A9',
         'Attribute-inference attack (AIA, §IV-E)'),
        ('A10',
         'End-to-end PPGNN pipeline'),
        ('C1',
         '(M1 Laplace). x + Lap(2/ε) is ε-LDP on [−1,1]; d-D with ε/d per coordinate is ε-LDP; unbiased; '
         'Var = 8d²/ε² . Audit: analytic density ratio sup over a grid o...'),
        ('C2',
         '(M2 Gaussian). Claim: σ² = 2 ln(1.25/δ)/ε² gives (ε, δ)-LDP. False for [−1,1] inputs (E1). '
         'Audit: compute the exact privacy profile δ(ε) = Φ(Δ/(2σ) − εσ/Δ) −...'),
        ('C3',
         '(M3 1-bit, Eq. 4). Probabilities sum to 1 for all x; exact ratio Pr[+1 1]/Pr[+1 −1] = e^ε ; '
         "E[x'] = x (e^ε − 1)/(e^ε + 1) ; rectified C(ε)x' unbiased with va..."),
        ('C4',
         "(M4 MB). E[x'_i] = x_i , Var[x'_i] = (d/m) C(ε/m)² − x_i² , ε-LDP. Audit as C6–C7; additionally "
         'a two-sample chi-square between MB (client-rectified) and MLR...'),
        ('C5',
         "(A1, Algorithm 1). ε-LDP (ratio exactly e^ε), E[x'] = x , Var[x'] = C(ε)² − x² . Verified for ε "
         '∈ {0.01, 0.1, 0.5, 1, 2, 2.2, 4}, x ∈ {−1, −0.3, 0, 0.7, 1}, ...'),
        ('C6',
         '(Theorem 1, optimal m). Claim: minimising Eq. 5 gives m = max(1, min(d, ⌊ε/2.2⌋)) . Derived: '
         'with t = ε/m , Var + x² = (d/ε)·t·coth²(t/2) , minimised at the ...'),
        ('C7',
         "(Theorem 2, MLR). (a) ε-LDP per user; (b) E[x'_i] = x_i ; (c) Eq. 5 variance. Audit: (a) "
         'white-box enumeration of the full output pmf (support pattern × sign...'),
        ('C8',
         '(ESW, Eq. 6). (a) pmf sums to 1 for every g (only with the shifted window, E3); (b) ε-LDP in g '
         'when ε, b, f are common; (c) the sampler matches the pmf. Audi...'),
        ('C9',
         '(PPM composition). Budgets: ε_1 + ε_2 = ε^τ exactly; ESW and MLR use independent randomness; the '
         'report for a fixed τ is (1−γ)ε^τ -LDP in x (hence ε^τ-LDP). ...'),
        ('C10',
         '(Theorem 5: "PPGNN satisfies ε^τ-LDP for each node"). Meaning of ε^τ: the budget attached to the '
         "user's own level τ, i.e. the τ-th element of E — a personali..."),
        ('C11',
         '(level protection, "dual privacy" — negative audit). Claim in §I/§III-B: τ is protected by ESW. '
         "Audit: (a) Bayes-optimal accuracy of guessing τ from τ' alone..."),
        ('C12',
         "(Theorem 3, unbiased linear aggregation). For any linear AGG with weights independent of x', "
         "E[ĥ_{N(v)}] = h_{N(v)} . With FlexProp's random weights, the exa..."),
        ('C13',
         '(Eq. 10 and optimal weights, Eq. 11). Var(ĥ_i) = Σ w² σ² / (Σ w)² ; minimiser w ∝ 1/σ² , minimum '
         '1/Σ(1/σ_j²) . Audit: closed-form vs MC (10^6 draws of indepe...'),
        ('C14',
         "(FlexProp weighting quality — paper's implicit claim that α ∝ τ' approximates the optimum). "
         'Audit: per-coordinate aggregate variance, averaged over level dra...'),
        ('C15',
         '(Theorem 4, error bound, MEAN aggregator). Claim: with probability ≥ 1 − δ, Δ = max_i ĥ_i − h_i '
         '= O(√(d log(d/δ)) / ((1−γ) ε √ N(v) )) + O(1/(γ ε)) . Checkab...'),
        ('C16',
         '(complexity). Wall-clock of FlexProp with sparse matmul grows linearly in K and in E ·d. Audit '
         '(benchmark, not gating): K ∈ {1,2,4,8,16} on a synthetic graph...'),
        ('C17',
         '(Table III ordering). PPM ≥ MB ≥ GM > {LP, 1B} in test accuracy at each ε ∈ {0.01, 0.1, 1}; PPM '
         '≈ +7 points over the second best on Cora at ε = 0.01 (62.0 vs...'),
        ('C18',
         '(AIA). NonPriv attack accuracy > 90% on Cora; BASE/LPGNN/PPGNN near random guessing at ε ∈ '
         '{0.01, 0.1, 1.0}; PPGNN similar to the other LDP methods. Audit: A...'),
        ('C19',
         '(parameter trends, figure-only). h ↑ ⇒ accuracy ↑ (Fig. 7a); accuracy vs γ peaks near 0.5 (Fig. '
         '7b); accuracy vs K rises then falls (Fig. 6); FlexProp > KPro...'),
        ('E1',
         'Gaussian mechanism calibration (§II-D2). The formula σ² = 2 ln(1.25/δ)/ε² omits the sensitivity; '
         'on [−1,1] Δ = 2, so σ² = 8 ln(1.25/δ)/ε² (classical bound, valid for ε < 1). Evidence (exact '
         'privacy profile, δ_target = 1e-5): paper σ at ε = 1 is 4.8448 and actually achieves δ = 1.70e-3 '
         '(170× the target); at ε = 0.1, δ = 1.10e-4; with Δ = 1 it would be 4.1e-8. Also: d-D composition '
         'with budget ε/...'),
        ('E2',
         'Theorem 1 is not the integer optimum. The exact continuous optimum of the per-coordinate budget '
         'is t = 2.1773190 (root of sinh t = 2t ), and the integer minimiser is the better of ⌊ε/t ⌋ , '
         '⌈ε/t ⌉ . The floor rule switches m → m+1 at ε = 2.2(m+1), while the true switch points are ε = '
         '3.0571 (1→2), 5.3199 (2→3), 7.5328 (3→4), 9.7297 (4→5). On the grid ε ∈ [0.01, 60) step 0.01 the '
         'rule is suboptim...'),
        ('E3',
         'ESW window does not normalise. With D\' = {1..f+2b} and "p if g − g\' ≤ b", inputs g ≤ b get fewer '
         'than 2b+1 high-probability outputs. Evidence: f = 5, ε = 1 (b = 1), g = 1: total mass 2p + 5q = '
         '0.8586 ; ε = 0.05 (b = 2): g = 1 → 0.9889, g = 2 → 0.9945. Correct: high-probability window {g, '
         "…, g+2b} (equivalently g' − (g+b) ≤ b ), which sums to 1 for all g and has max ratio exactly e^ε "
         '(verified);...'),
        ('E4',
         'ESW budget depends on the secret level. PPM runs ESW with ε_1 = γ ε^τ , so b, p, q and even the '
         'output domain size f + 2b depend on τ. Evidence (h = f = 5, γ = 0.5, ε^τ = 2^{τ−1}ε ): base ε = '
         '0.1 → b per level = [2,2,2,1,1], outputs 8 and 9 occur only for τ ≤ 3 (infinite likelihood '
         "ratio); base ε = 1 → b = [1,1,0,0,0]; Bayes accuracy of guessing τ from τ' alone = 0.6421 (vs "
         '0.2580 if ESW used t...'),
        ('E5',
         'MLR output scale reveals the level. Algorithm 2 returns client-side rectified values '
         '±(d/m)·C((1−γ)ε^τ/m) ; the magnitude is a deterministic, injective function of τ. Evidence (Cora '
         'd = 1433, base ε = 1, γ = 0.5, h = 5): magnitudes per level 5850.922, 3100.945, 1881.580, '
         '1486.472, 549.003 ⇒ τ recovered with probability 1 from any report. Under the Algorithm-2 m rule '
         'the number of non-zeros (m =...'),
        ('E6',
         "Inconsistent m for PPM. Algorithm 2 computes m from its own budget (1−γ)ε^τ ; the text uses m' = "
         "max(1, min(d, ⌊ε^{τ'}/2.2⌋)) with the total budget of the perturbed level; τ' ranges over "
         "{1..h+2b} , so ε^{τ'} is undefined for τ' > h. Recommended: m' = max(1, min(d, "
         "⌊(1−γ)ε^{τ̂}/2.2⌋)) , τ̂ = clip(τ' − b, 1, h) . Example of the difference (base ε = 1, γ = 0.5): "
         'Algorithm 2 gives m = 1,1,1,1,3 pe...'),
        ('E7',
         'Budget set size. E = {ε, 2ε, …, 2^h ε} has h+1 elements while τ ∈ {1..h}; §IV-C also calls 2^h ε '
         'the highest budget. Recommended ε^τ = 2^{τ−1} ε (h values), with the literal h+1-value set as an '
         'option'),
        ('E8',
         'Theorem 4 as stated is not checkable and misses terms. (i) It hides a Bernstein range term O(d '
         'log(d/δ)/((1−γ)ε n)) that dominates when n = N(v) < d log(d/δ) — the normal case (Cora: d = '
         '1433, average degree 3.9). Evidence (d = 1433, ε_2 = 1, δ = 0.05, MEAN over n users): empirical '
         "95% quantile of Δ = 620.7 at n = 5 (≈ d·C(1)/n = 620.2 : a single user's non-zero coordinate), "
         '124.1 at n = 50, 24...'),
        ('E9',
         'Theorem 5 scope. Holds for features at fixed τ (in fact with (1−γ)ε^τ ), not for the joint '
         'record (x, τ) as the "dual protection" narrative implies (E4, E5, C10)'),
        ('E10',
         "FlexProp's proxy weights. The derived optimum is w ∝ 1/σ² ; for m = 1, σ² ≈ 4d/((1−γ)ε^τ)² , so "
         "optimal weights grow like 4^{τ} when ε^τ = 2^{τ−1}ε , not linearly in τ. With the noisy τ' and a "
         'small ESW budget the weights are essentially random and inflate variance. Evidence (d = 1433, h '
         '= 5, γ = 0.5, τ uniform, x = 0, n neighbours, 2·10^5 draws; ratios of expected aggregate '
         'variance to uniform...'),
        ('E11',
         'Name of γ. Table I calls γ the split "between PPM and FlexProp"; it is the split between ESW and '
         'MLR inside PPM (FlexProp consumes no budget). §IV-A3 calls the same parameter δ (clashes with '
         'the δ of M2 and Theorem 4)'),
        ('E12',
         'Learning-rate grid contains 0'),
        ('E13',
         'ε grids disagree between the setup ({0.01, 1, 2, 3}) and the reported results ({0.01, 0.1, 1.0}; '
         '{0.01, 1.0})'),
        ('E14',
         'Fig. 7(c) explanation. "As m increases, the effective privacy budget grows" contradicts Theorem '
         '1: for fixed budget ε ≤ 2.2 the variance (d/m)C(ε/m)² ≈ 4dm/ε² grows linearly with m (Cora d = '
         '1433, ε = 0.5, x = 0: m = 1 → 23,889; m = 10 → 229,376 per coordinate). Unless m is tied to a '
         'growing budget, accuracy should fall with m at small ε'),
        ('E15',
         'Algorithm 4 AGG. h^k_v = AGG({Π_{v,u} h^{k−1}_u}) double-normalises if AGG = MEAN; use SUM of '
         'Π-weighted messages. FlexProp includes self-loops (N(v) ∋ v) whereas KProp deliberately excludes '
         'them; the FlexProp vs KProp comparison (Figs. 8–9) therefore mixes two changes'),
        ('E16',
         'Table III comparison basis. With client rectification, MLR is the same distribution as MB at '
         "equal budget (both: A1 on m sampled coordinates, scaled by d/m). PPM's gain can only come from "
         'personalized budgets: with h = 5, γ = 0.5, ε^τ = 2^{τ−1}ε , uniform levels, the mean feature '
         'budget is 0.5·(1+2+4+8+16)/5·ε = 3.1ε vs ε for MB. The protocol (which budget the baselines get, '
         'backbone, K) is not...'),
        ('E17',
         'GM above LP in Table III is unexplained by variance: per coordinate, GM/LP variance = 2.93 with '
         "the paper's σ (δ = 1e-5) and 11.74 with the corrected σ; δ is never given"),
        ('E18',
         '1-bit mechanism is given without a rectifier; the raw ±1 output is biased by the factor (e^ε − '
         '1)/(e^ε + 1)'),
        ('E19',
         'Missing appendices A–F (proofs of Theorems 1–5 and Eq. 11) are referenced but absent from the '
         'seed'),
    ),
    "se-privgemb": (
        ('M1',
         'skip-gram with negative sampling (Eq. 2)'),
        ('M2',
         'structure-preference loss (Eq. 5)'),
        ('M3',
         'per-subgraph gradients (Eqs. 7, 8)'),
        ('M4',
         'clipping (Eq. 3)'),
        ('M5',
         'naive perturbation (Eq. 6, "first-cut solution")'),
        ('M6',
         'non-zero-row perturbation (Eq. 9, the proposed mechanism)'),
        ('M7',
         'negative-sampling distributions (four incompatible specifications exist)'),
        ('M8',
         'Gaussian mechanism and RDP tools (Section II-B)'),
        ('M9',
         'subsampled RDP bound (T4, Wang–Balle–Kasiviswanathan 2019, Thm 9)'),
        ('M10',
         'evaluation metrics'),
        ('A1',
         'subgraph generation (Algorithm 1), run ONCE before training'),
        ('A2',
         'SE-PrivGEmb training (Algorithm 2)'),
        ('A3',
         'accountant (Theorem 5)'),
        ('A4',
         'Theorem-3-consistent trainer (not in the paper; needed to verify T3, recommended as an option)'),
        ('C1',
         'Eq. 7 and Eq. 8 are the gradients of the sampled Eq. 5 loss random subgraphs (r in {3,16,128}, k '
         'in {1,5}, repeated negatives allowed, p in (0,1]); compare c...'),
        ('C2',
         'Clip (Eq. 3): output norm <= C; identity if norm <= C; direction preserved property test over '
         '10^4 random vectors incl. norm exactly C and zero vector'),
        ('C3',
         'M6 noise is only on touched rows, std S sigma / B per coordinate after averaging run one step '
         'with noise and the same step without noise (same batch); residu...'),
        ('C4',
         'M5 noise is on all |V| rows with std S sigma / B same as C3 with all rows'),
        ('C5',
         'T3, exact form karate-club graph (34 nodes), r = |V|, k = 5, proximities P1, P2, P6, P8 (beta = '
         '0.05), P9 (a = 0.15). Minimise L(X) of A4, parametrised as X ...'),
        ('C6',
         "T3, stochastic form (A4 sampler) karate, P9, k = 5, r = 34, B = 256 positive draws/step, k' = 5, "
         'Adam lr 0.02 for 30k steps then 0.001 for 30k; require RMSE(...'),
        ('C7',
         'Eq. 15 (degree-based negatives) as C5 with b_ij = k d^P_i d^P_j / D; max abs error < 5e-2 '
         '(achieved 3e-2 worst, Katz; <= 3e-4 others)'),
        ('C8',
         'Algorithm 1 does NOT realise Eq. 10 (negative control; documents E2) karate, P6, k = 5, r = 34, '
         'one orientation per edge, rejection of neighbours, B = 16, Ad...'),
        ('C9',
         'Gaussian RDP = alpha Delta^2 / (2 s^2) numerical integration of the Rényi divergence of '
         'N(Delta,s^2) vs N(0,s^2) for alpha in {1.5, 2, 8, 32}; relative error...'),
        ('C10',
         "Poisson-subsampled Gaussian RDP (used by the authors' code, Opacus) numerical integration of "
         'D_alpha((1-q)N(0,s^2)+qN(1,s^2) || N(0,s^2)) for integer alpha 2...'),
        ('C11',
         'M9 (T4) is an upper bound, looser than the strengthened WOR bound; and the multiplier convention '
         'matters for q in {0.004, 0.02, 0.1}, sigma in {1, 2.5, 5}, a...'),
        ('C12',
         'T1 for random RDP curves, eps_T1(delta) >= eps_improved(delta); both monotone in T'),
        ('C13',
         'T5 composition is linear in T accountant RDP(T) = T RDP(1) at every order (exact)'),
        ('C14',
         'Reported budgets (eps in {0.5..3.5}) vs. what the stated settings spend recompute Table A below; '
         'flag every configuration where the target never binds (E13)'),
        ('C15',
         'Stop rule with the accountant of A3, the number of executed steps for each target eps must equal '
         "the largest T with eps(T) <= target (+1 if the paper's post-..."),
        ('C16',
         'M6 releases node membership (privacy failure of the proposed mechanism) distinguishing audit of '
         'Section 6.4; must DETECT a violation for M6 and must NOT dete...'),
        ('C17',
         'Table VI: non-zero > naive in all 18 configurations reproduce with 10 seeds per cell; one-sided '
         'Welch t-test, Holm correction over 18 cells'),
        ('C18',
         'Utility ordering claims (Figs. 3–4): private SE-PrivGEmb below its non-private SE-GEmb at every '
         'eps; SE-PrivGEmb above the four DP baselines qualitative benc...'),
        ('C19',
         'StrucEqu implementation Y = A gives exactly 1.0; invariance to permuting nodes consistently and '
         'to orthogonal transforms of Y; matches a direct numpy impleme...'),
        ('C20',
         'AUC implementation equals the Mann–Whitney U statistic / (n+ n-) with ties counted 1/2'),
        ('E1',
         '(Theorem 3, negative distribution). "P_n proportional to min(P)/sum_j p_ij" depends on the'),
        ('E2',
         '(Algorithm 1 vs Theorem 3). Algorithm 1 (i) uses only edges as positives, whereas the proof sums'),
        ('E3',
         '(Eq. 11 vs its expansion). Eq. 11 is an expectation over (i,j) in E but is rewritten as'),
        ('E4',
         '(independence of x_ij). The stationarity step treats every x_ij as a free variable; that holds'),
        ('E5',
         '(c is data dependent). c = min(P) is computed from the private graph and enters the objective;'),
        ('E6',
         '(Eq. 14 notation). The negative distribution is written d_v^n/|E| (which sums to 2, not 1) while '
         'D = sum_ij p_ij; Eq. 15'),
        ('E7',
         '(sensitivity never specified). Eq. 9 uses S_{grad v} without a value; only the naive Eq. 6 gets'),
        ('E8',
         '(non-zero-row noise is not a Gaussian mechanism). The noise support equals the set of nodes in'),
        ('E9',
         '(node-level neighbours vs sampling unit). Theorem 5 amplifies with gamma = B/|E| as if one node'),
        ('E10',
         '(two releases per step). W_in and W_out are clipped and noised separately (lines 6 and 7), each'),
        ('E11',
         '(replace-one sensitivity). Under the bounded relation a replaced record can move a sum of'),
        ('E12',
         '(Theorem 4 floor / accountant mismatch). With eps(inf) = inf the j >= 3 terms of M9 do not'),
        ('E13',
         '(reported budgets inconsistent with the stated settings). With sigma = 5, B = 128 the spent eps'),
        ('E14',
         '(Table VI vs Fig. 3). Arxiv SE-PrivGEmb_DW: Table VI gives 0.1770 (eps = 0.5) and 0.2199'),
        ('E15',
         '(off-by-one stop). Algorithm 2 (and the code) applies the update before checking the budget,'),
        ('E16',
         '(dataset description). "Arxiv ... Astrophysics" but the link and the counts (5,242 nodes,'),
        ('E17',
         '(link-prediction level). Non-private AUC 0.526–0.552 is near chance; together with E2 this'),
        ('E18',
         '(minor). Definition 5 writes the model as E L(v_i,v_j) instead of L_nov; Theorem 2 releases'),
    ),
}


def coverage(paper: str, rows) -> list[dict]:
    """One entry per spec id of ``paper`` (every C and E id; M, A and B ids when a row checks them): the rows
    that check it, their worst status (fail > inconclusive > pass > info), or what the id still needs."""
    by_id: dict[str, list] = {}
    for row in rows:
        for spec_id in row_ids(row.name, row.claim):
            by_id.setdefault(spec_id, []).append(row)
    order = ("fail", "inconclusive", "pass", "info")
    entries = []
    for spec_id, words in SPEC_IDS[paper]:
        checked = by_id.get(spec_id, [])
        if not checked and spec_id[0] not in "CE":
            continue
        statuses = {r.status.value for r in checked}
        status = next((s for s in order if s in statuses), "needs")
        needs = NEEDS.get(paper, {}).get(spec_id, "" if checked else "a check (not written yet)")
        entries.append({"id": spec_id, "spec": words, "rows": [r.name for r in checked], "status": status,
                        "needs": needs})
    return entries
