"""Frequency-oracle benchmark (issue 21): how tight ldp-audit's black-box bound is on every built-in frequency
oracle, next to the law's ceiling and, when it is installed, next to LDP-Auditor on the same protocols.

For every oracle at eps in {0.5, 1, 2} and k in {2, 25, 200} (a combination an oracle refuses is listed as
skipped, with its error), ``verify(..., checks="privacy")`` runs at ``--samples`` draws per input and confidence
1 - ``--alpha``; the table gives

* ``eps_lower``: the black-box search's certified lower bound (``privacy.blackbox``), with the declared law's
  likelihood-ratio events among its candidates (planned before sampling: counted on all draws, half of alpha);
* ``ceiling``: the bound the law's best event would certify at this n and per-event confidence with its counts at
  their expectations (``audits.report_law.law_ceiling``, over the same input pairs; "n/a" for SHE, whose law is
  continuous and not enumerated). It is an expectation, not a cap: the search keeps the largest of many bounds, on
  pairs whose laws are alike, so its maximum may exceed it by sampling luck (each bound still holds at its alpha);
* the white-box ratio from the law (``privacy.whitebox``) and the CPU seconds of the audit;
* with LDP-Auditor: its eps_emp on the same protocol (its fixed attack on inputs 0 vs k-1, one Ray worker), its
  wall seconds and the ratio ldp-audit / LDP-Auditor. LDP-Auditor (Arcolezi & Gambs, PETS 2024) covers GRR, SS, SUE, OUE, THE, SHE,
  BLH and OLH; Hadamard response and cohort RAPPOR have no counterpart there. Its confidence is 1 - alpha over one
  event; ldp-audit's is family-wise over every event and input pair it tries, so equal alphas favour LDP-Auditor.

LDP-Auditor's package is also named ``ldp_audit``, so it runs in its own interpreter (a subprocess). To install
it (research use; its pins need Python <= 3.12, and it hashes str names, which xxhash >= 3 refuses)::

    git clone https://github.com/hharcolezi/ldp-audit /opt/LDP-Auditor
    python3.11 -m venv /opt/ldp-auditor-venv
    /opt/ldp-auditor-venv/bin/pip install -r /opt/LDP-Auditor/requirements.txt "xxhash<3"
    python benchmarks/frequency_oracles.py --ldp-auditor /opt/LDP-Auditor \\
        --ldp-auditor-python /opt/ldp-auditor-venv/bin/python --samples 1000000

Usage: python benchmarks/frequency_oracles.py [--samples N] [--alpha A] [--oracles sue,olh,...] [--eps 0.5,1,2]
       [--k 2,25,200] [--ldp-auditor CLONE [--ldp-auditor-python PYTHON]]
"""
from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
import time

from rich.console import Console
from rich.table import Table

from ldp_audit.audits.privacy.report_law import law_ceiling
from ldp_audit.audits.verify.orchestrator import AuditSettings, verify
from ldp_audit.mechanisms import make
from ldp_audit.mechanisms.frequency import ORACLES

#: LDP-Auditor's names of the protocols it audits, by our registry name.
LDP_AUDITOR_NAMES = {"sue": "SUE", "oue": "OUE", "she": "SHE", "the": "THE", "olh": "OLH", "blh": "BLH", "ss": "SS"}

#: Runs inside LDP-Auditor's interpreter: one audit per line of JSON on stdin, one result per line on stdout.
_DRIVER = """
import json, sys, time
from ldp_audit.base_auditor import LDPAuditor
auditor, built = None, None
for line in sys.stdin:
    job = json.loads(line)
    setting = (job["n"], job["alpha"], job["eps"], job["k"], job["seed"])
    if setting != built:  # LDPAuditor fixes its inputs (0 and k-1) and starts Ray when built: once per setting
        auditor = LDPAuditor(nb_trials=job["n"], alpha=job["alpha"], epsilon=job["eps"], delta=0.0, k=job["k"],
                             random_state=job["seed"], n_jobs=1)
        built = setting
    start = time.perf_counter()
    eps_emp = float(auditor.run_audit(job["protocol"]))
    print("RESULT " + json.dumps({"eps_emp": eps_emp, "wall": time.perf_counter() - start}), flush=True)
"""


class LdpAuditor:
    """LDP-Auditor in its own interpreter, started once; ``None`` results when it cannot be imported."""

    def __init__(self, clone: str | None, python: str):
        self.process = None
        self.reason = "not installed (see the docstring)"
        if not clone:
            return
        env = {**os.environ, "PYTHONPATH": os.path.abspath(clone)}
        check = subprocess.run([python, "-c", "import ldp_audit.base_auditor"], cwd=clone, env=env,
                               capture_output=True, text=True)
        if check.returncode != 0:
            self.reason = f"not importable: {check.stderr.strip().splitlines()[-1] if check.stderr else check.returncode}"
            return
        self.process = subprocess.Popen([python, "-c", _DRIVER], cwd=clone, env=env, text=True,
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        self.reason = ""

    def audit(self, name: str, eps: float, k: int, n: int, alpha: float, seed: int):
        if self.process is None or name not in LDP_AUDITOR_NAMES:
            return None
        job = {"protocol": LDP_AUDITOR_NAMES[name], "eps": eps, "k": k, "n": n, "alpha": alpha, "seed": seed}
        self.process.stdin.write(json.dumps(job) + "\n")
        self.process.stdin.flush()
        while True:  # Ray may write its own lines to stdout
            line = self.process.stdout.readline()
            if not line:
                raise RuntimeError("LDP-Auditor's interpreter stopped; run it by hand to see why")
            if line.startswith("RESULT "):
                return json.loads(line[len("RESULT "):])

    def close(self):
        if self.process is not None:
            self.process.stdin.close()
            self.process.wait()


def _floats(text: str) -> list[float]:
    return [float(v) for v in text.split(",")]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=20_000, help="draws per input (default: a quick 20000)")
    parser.add_argument("--alpha", type=float, default=1e-2, help="1 - confidence (LDP-Auditor's default 1e-2)")
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--oracles", default=",".join(cls.name for cls in ORACLES))
    parser.add_argument("--eps", type=_floats, default=[0.5, 1.0, 2.0])
    parser.add_argument("--k", type=lambda s: [int(v) for v in s.split(",")], default=[2, 25, 200])
    parser.add_argument("--ldp-auditor", default=os.environ.get("LDP_AUDITOR_PATH"),
                        help="a clone of github.com/hharcolezi/ldp-audit (or $LDP_AUDITOR_PATH)")
    parser.add_argument("--ldp-auditor-python", default=sys.executable,
                        help="the interpreter with LDP-Auditor's requirements installed")
    args = parser.parse_args()
    settings = AuditSettings(samples=args.samples, seed=args.seed, alpha=args.alpha)
    auditor = LdpAuditor(args.ldp_auditor, args.ldp_auditor_python)
    console = Console(width=200)
    table = Table(title=f"frequency oracles: black-box eps_lower at {args.samples:,} draws per input, confidence "
                        f"{1 - args.alpha:g}" + (f"; LDP-Auditor {auditor.reason}" if auditor.reason else ""))
    for column in ("oracle", "eps", "k", "eps_lower", "ceiling", "lower/eps", "white-box", "family", "CPU s",
                   "LDP-Auditor", "its wall s", "ldp-audit / LDP-Auditor"):
        table.add_column(column)
    skipped = []
    for eps in args.eps:
        for k in args.k:
            for name in args.oracles.split(","):
                try:
                    oracle = make(name, eps=eps, k=k)
                except ValueError as exc:
                    skipped.append(f"{name} eps={eps:g} k={k}: {exc}")
                    continue
                start = time.process_time()
                report = verify(oracle, settings, checks="privacy")
                cpu = time.process_time() - start
                rows = {r.name: r for r in report.results}
                black = rows["privacy.blackbox"]
                # the law's events are planned before sampling: counted on every draw, at the planned share of alpha
                planned = black.details.get("planned", 0)
                top = law_ceiling(oracle, black.details["pilot"] + black.details["final_draws"] if planned else
                                  black.details["final_draws"],
                                  black.details["planned_alpha"] if planned else black.details["alpha_each"])
                white = rows.get("privacy.whitebox")
                theirs = auditor.audit(name, eps, k, args.samples, args.alpha, args.seed)
                ratio = ""
                if theirs is not None:  # LDP-Auditor's log of a non-positive ratio bound is nan or -inf: nothing certified
                    their = theirs["eps_emp"] if math.isfinite(theirs["eps_emp"]) else 0.0
                    theirs["eps_emp"] = max(their, 0.0)
                    ratio = (f"{black.statistic / theirs['eps_emp']:.2f}" if theirs["eps_emp"] > 0 else
                             ("both 0" if black.statistic == 0 else "inf"))
                table.add_row(name, f"{eps:g}", str(k), f"{black.statistic:.4f}",
                              "n/a" if math.isnan(top) else f"{max(top, 0.0):.4f}", f"{black.statistic / eps:.3f}",
                              f"{white.statistic:.4f}" if white else "", black.details["family"], f"{cpu:.1f}",
                              "" if theirs is None else f"{theirs['eps_emp']:.4f}",
                              "" if theirs is None else f"{theirs['wall']:.1f}", ratio)
    auditor.close()
    console.print(table)
    for line in skipped:
        console.print(f"skipped {line}")


if __name__ == "__main__":
    main()
