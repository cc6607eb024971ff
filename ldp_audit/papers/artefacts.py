"""Every table and figure of the four papers, read from the seeds, with what reproduces it.

One entry per artefact as the seed numbers it (``table3``, ``fig6``), its caption in a few words, and its status:

* a reproduce target: ``targets`` names the ``ldp-audit reproduce PAPER --tables ...`` ids that fill it (one
  artefact can need several ids; one id can fill two artefacts,
  LDP-GE's ``ksweep`` draws Figures 3 and 4); ``note`` says what of it the targets leave out;
* checked by another command (``elsewhere``): an analytic curve or a dataset table that ``claims``, ``compare``,
  ``attack`` or ``data`` recomputes;
* neither: ``note`` is the reason (a diagram, a notation table, inputs rather than results).

Entries with ``in_seed=False`` are targets the package reproduces that the seed does not print (LPGNN's Drop table
is in the CCS '21 version only); they are listed so that every runnable id has an entry, and are not counted as
artefacts of the seed.
"""
from __future__ import annotations

from dataclasses import dataclass

#: The four papers in the order every listing uses, with the seed file each artefact was read from.
PAPERS = {"lpgnn": "seed 003", "ppgnn": "seed 004", "ldp-ge": "seed 000", "se-privgemb": "seed 002"}

TARGET, ELSEWHERE, NOT_RUNNABLE = "target", "elsewhere", "not runnable"
#: The mode a paper's ``--tables`` need: ldp-ge's --quick is one fixed Cora grid and refuses --tables.
MODE = {"ldp-ge": "--full"}


@dataclass(frozen=True)
class Artefact:
    """One printed table or figure and what runs it (see the module docstring)."""

    paper: str
    id: str
    printed: str
    caption: str
    targets: tuple[str, ...] = ()
    elsewhere: str = ""
    note: str = ""
    in_seed: bool = True

    @property
    def status(self) -> str:
        return TARGET if self.targets else ELSEWHERE if self.elsewhere else NOT_RUNNABLE

    @property
    def arguments(self) -> str:
        """The options of ``reproduce PAPER`` that fill it ("" when it is not a target)."""
        if not self.targets:
            return ""
        return " ".join(filter(None, (MODE.get(self.paper), "--tables", *self.targets)))

    @property
    def command(self) -> str:
        """The command that runs it, or "" when nothing does."""
        return f"ldp-audit reproduce {self.paper} {self.arguments}" if self.targets else self.elsewhere

    def to_dict(self) -> dict:
        return {"id": self.id, "printed": self.printed, "caption": self.caption, "status": self.status,
                "targets": list(self.targets), "command": self.command, "note": self.note,
                "in_seed": self.in_seed}


_DIAGRAM = "a diagram, no numbers to reproduce"
_NOTATION = "a table of symbols, no numbers to reproduce"
_NO_FEATURES = "LastFM and Wikipedia lack node features in the datasets folder: their panels are not run"


def _a(paper: str, id_: str, printed: str, caption: str, *targets: str, elsewhere: str = "", note: str = "",
       in_seed: bool = True) -> Artefact:
    return Artefact(paper, id_, printed, caption, targets, elsewhere, note, in_seed)


ARTEFACTS: tuple[Artefact, ...] = (
    # ----- LPGNN, seed 003 ----------------------------------------------------------------------------------
    _a("lpgnn", "fig1", "Figure 1", "the node-level privacy setting (server, users, private features)",
       note=_DIAGRAM),
    _a("lpgnn", "fig2", "Figure 2", "a two-layer GNN drawn as AGGREGATE/UPDATE steps", note=_DIAGRAM),
    _a("lpgnn", "fig3", "Figure 3", "why exact aggregation outputs allow a differencing attack", note=_DIAGRAM),
    _a("lpgnn", "fig4", "Figure 4", "LPGNN's pipeline: multi-bit encoder, KProp layer, second layer",
       note=_DIAGRAM),
    _a("lpgnn", "table1", "Table 1", "dataset statistics (nodes, edges, features, classes)",
       elsewhere="ldp-audit data", note="counts checked against the datasets README, which quotes the papers"),
    _a("lpgnn", "table2", "Table 2", "the hyper-parameters found per dataset",
       note="inputs, not results (the reproduce runs use them as presets)"),
    _a("lpgnn", "fig5", "Figure 5", "MAE of the aggregation estimate against eps: MBM vs 1BM vs AGM (top), "
       "mean vs GCN aggregator (bottom)", "fig5"),
    _a("lpgnn", "table3", "Table 3", "micro-F1 of LPGNN and the baselines against eps", "table3",
       note="GitHub and LastFM lack node features in the datasets folder: their rows are not run"),
    _a("lpgnn", "fig6", "Figure 6", "micro-F1 against the KProp steps K: LPGNN vs GCN+Raw with KProp (top), "
       "with and without self-loops (bottom)", "fig6"),
    _a("lpgnn", "fig7", "Figure 7", "micro-F1 against the label rate, over eps (top) and over K (bottom)",
       "fig7"),
    _a("lpgnn", "fig8", "Figure 8", "the curve z coth^2(z/2) whose minimum fixes the optimal m",
       elsewhere="ldp-audit claims lpgnn", note="an analytic curve: claim C6 recomputes its minimiser"),
    _a("lpgnn", "drop", "Drop table", "label denoising at eps_x = 1: cross-entropy, forward correction, Drop",
       "drop", note="not in the seed: the CCS '21 version's experiment (spec B6.3)", in_seed=False),
    # ----- PPGNN, seed 004 ----------------------------------------------------------------------------------
    _a("ppgnn", "fig1", "Fig. 1", "prior works (one budget) vs personalized budgets per user", note=_DIAGRAM),
    _a("ppgnn", "table1", "Table I", "notation", note=_NOTATION),
    _a("ppgnn", "fig2", "Fig. 2", "PPGNN's pipeline: PPM on the users, FlexProp and the GNN on the server",
       note=_DIAGRAM),
    _a("ppgnn", "table2", "Table II", "dataset statistics", elsewhere="ldp-audit data",
       note="counts checked against the datasets README, which quotes the papers"),
    _a("ppgnn", "fig3", "Fig. 3", "accuracy against eps: PPGNN vs NonPriv, BASE and LPGNN", "fig3",
       note=_NO_FEATURES),
    _a("ppgnn", "table3", "Table III", "accuracy of the feature mechanisms 1B, LP, GM, MB and PPM", "table3",
       note=_NO_FEATURES),
    _a("ppgnn", "fig4", "Fig. 4", "PPGNN with GCN, GraphSAGE and GAT (left); PPM* vs plain LP (right)", "fig4"),
    _a("ppgnn", "fig5", "Fig. 5", "attribute-inference attack accuracy (left); three extreme level "
       "distributions (right)", "fig5",
       note="the left panel's attack is `ldp-audit attack neighbour-vote` (C18)"),
    _a("ppgnn", "fig6", "Fig. 6", "accuracy against K (GraphSAGE)", "fig6"),
    _a("ppgnn", "fig7", "Fig. 7", "accuracy against the levels h (a), gamma (b) and m (c)", "fig7"),
    _a("ppgnn", "fig8", "Fig. 8", "FlexProp vs KProp with GraphSAGE", "fig8", note=_NO_FEATURES),
    _a("ppgnn", "fig9", "Fig. 9", "FlexProp vs KProp with GCN", "fig9", note=_NO_FEATURES),
    # ----- LDP-GE, seed 000 ---------------------------------------------------------------------------------
    _a("ldp-ge", "table1", "TABLE I", "notation", note=_NOTATION),
    _a("ldp-ge", "fig1", "Fig. 1", "worst-case 1-D noise variance against eps: SW, LP, PM, MB",
       elsewhere="ldp-audit compare --sweep",
       note="an analytic curve: `compare --sweep` draws it, `claims ldp-ge` (C10) checks its crossings"),
    _a("ldp-ge", "table2", "TABLE II", "dataset statistics", elsewhere="ldp-audit claims ldp-ge",
       note="claim C20 loads the six graphs and compares their counts"),
    _a("ldp-ge", "fig2", "Fig. 2", "node-classification accuracy against eps for LP, PM, MB, HDS", "fig2",
       note=_NO_FEATURES + "; the paper prints no numbers, the report checks the quoted ones (C22)"),
    _a("ldp-ge", "table3", "TABLE III", "link-prediction AUC against eps for LP, PM, MB, HDS", "table3",
       note=_NO_FEATURES),
    _a("ldp-ge", "fig3", "Fig. 3", "node-classification accuracy against the sampled dimensions k", "ksweep",
       note="eps = 1 only, the paper also draws 2 and 3; " + _NO_FEATURES),
    _a("ldp-ge", "fig4", "Fig. 4", "link-prediction AUC against the sampled dimensions k", "ksweep",
       note="eps = 1 only, the paper also draws 2 and 3; " + _NO_FEATURES),
    # ----- SE-PrivGEmb, seed 002 ----------------------------------------------------------------------------
    _a("se-privgemb", "table1", "TABLE I", "frequently used symbols", note=_NOTATION),
    _a("se-privgemb", "fig1", "Figure 1", "the skip-gram model's two embedding matrices", note=_DIAGRAM),
    _a("se-privgemb", "fig2", "Figure 2", "naive vs non-zero gradient perturbation, drawn on small matrices",
       note=_DIAGRAM + "; Table VI measures the two strategies"),
    _a("se-privgemb", "table2", "TABLE II", "StrucEqu against the batch size B at eps = 3.5", "table2"),
    _a("se-privgemb", "table3", "TABLE III", "StrucEqu against the learning rate eta at eps = 3.5", "table3"),
    _a("se-privgemb", "table4", "TABLE IV", "StrucEqu against the clipping norm C at eps = 3.5", "table4"),
    _a("se-privgemb", "table5", "TABLE V", "StrucEqu against the negatives k at eps = 3.5", "table5"),
    _a("se-privgemb", "table6", "TABLE VI", "StrucEqu with naive vs non-zero perturbation", "table6"),
    _a("se-privgemb", "fig3", "Figure 3", "StrucEqu against eps, SE-PrivGEmb vs SE-GEmb and four DP "
       "baselines", "fig3", note="DPGGAN, DPGVAE, GAP and ProGAP are other papers' systems, not reproduced; "
       "DBLP is not shipped"),
    _a("se-privgemb", "fig4", "Figure 4", "link-prediction AUC against eps, same methods", "fig4",
       note="the four DP baselines are not reproduced; Chameleon has no stored link split"),
)


def of(paper: str) -> tuple[Artefact, ...]:
    """The entries of ``paper`` in the order the seed prints them (extra targets last)."""
    if paper not in PAPERS:
        raise ValueError(f"paper must be one of {', '.join(PAPERS)}, got {paper!r}")
    return tuple(a for a in ARTEFACTS if a.paper == paper)


def target_ids(paper: str) -> tuple[str, ...]:
    """Every ``--tables`` id that the entries of ``paper`` name, once, in order."""
    return tuple(dict.fromkeys(t for a in of(paper) for t in a.targets))


def counts(paper: str) -> dict:
    """{"artefacts": tables and figures of the seed, "targets": of those, the reproduce targets, "elsewhere":
    checked by another command, "not runnable": neither}; entries not in the seed are not counted."""
    printed = [a for a in of(paper) if a.in_seed]
    out = {"artefacts": len(printed)}
    out.update({status: sum(a.status == status for a in printed) for status in (TARGET, ELSEWHERE, NOT_RUNNABLE)})
    return out
