"""``ldp-audit verify MECH --eps E [...]``: run every applicable audit of one mechanism.

MECH is a registered name (``ldp-audit list``) or ``package.module:factory`` for a user's own mechanism
(see ``ldp_audit.external``); extra parameters go through ``--param key=value`` or the named options.
"""
from __future__ import annotations

import argparse

from ._common import add_output_options, emit, parse_param, progress_bar
from ..audits.verify import DEFAULT_ALPHA, DEFAULT_SAMPLES, DEFAULT_SEED, AuditSettings, planned_draws, verify
from ..mechanisms import make

#: Mechanism parameters with their own option (everything else: --param key=value).
_NAMED = {"d": int, "k": str, "m": str, "alpha": float, "beta": float, "delta": float, "c": int, "f": int,
          "calibration": str}


def register(sub) -> None:
    p = sub.add_parser("verify", help="audit one mechanism: privacy, moments, distribution, structure",
                       description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("mechanism", metavar="MECH", help="registered name, or package.module:factory")
    p.add_argument("--eps", type=float, required=True, help="claimed privacy budget")
    for name, kind in _NAMED.items():
        p.add_argument(f"--{name}", type=kind, default=None, help=f"mechanism parameter {name}")
    p.add_argument("--param", action="append", default=[], metavar="KEY=VALUE", type=parse_param,
                   help="any other mechanism or factory parameter (repeatable)")
    p.add_argument("--samples", type=int, default=DEFAULT_SAMPLES, help="draws per input (default %(default)s)")
    p.add_argument("--seed", type=int, default=DEFAULT_SEED, help="seed of all sampling (default %(default)s)")
    p.add_argument("--confidence", type=float, default=1.0 - DEFAULT_ALPHA,
                   help="1 - family-wise false-alarm rate (default %(default)s)")
    p.add_argument("--workers", type=int, default=1, help="worker processes; results do not depend on it")
    add_output_options(p)
    p.set_defaults(func=run)


def _k_value(text):
    return int(text) if isinstance(text, str) and text.lstrip("-").isdigit() else text


def run(args, console) -> int:
    params = {name: getattr(args, name) for name in _NAMED if getattr(args, name) is not None}
    for key in ("k", "m"):
        if key in params:
            params[key] = _k_value(params[key])
    params.update(dict(args.param))
    settings = AuditSettings(args.samples, args.seed, round(1.0 - args.confidence, 12), args.workers)
    if ":" in args.mechanism:
        from ..external import audit_external, load_external

        mechanism = load_external(args.mechanism, args.eps, params)
        with progress_bar(console, enabled=not (args.json or args.markdown)) as advance:
            report = audit_external(mechanism, settings, progress=advance)
        return emit(report, args, console)
    mechanism = make(args.mechanism, eps=args.eps, **params)
    with progress_bar(console, total=planned_draws(mechanism, settings), enabled=not (args.json or args.markdown),
                      description=f"auditing {args.mechanism}") as advance:
        report = verify(mechanism, settings, progress=advance)
    return emit(report, args, console)
