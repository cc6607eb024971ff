"""ldp-audit verify MECH --eps E [...]: run every applicable audit of one
mechanism.

MECH is a registered name (see ldp-audit list) or package.module:factory for a
user's own mechanism (see ldp_audit.external); extra parameters go through
--param key=value or the named options. --checks privacy|curve|moments|
distribution|float|all (or a comma-separated list) selects the audits; the
sampler's sanity checks always run. 'all' is privacy,moments,distribution; the
privacy-curve rows run with privacy when the mechanism claims delta > 0 or
declares a curve (alone: --checks curve); the float check (the bits of float
reports, where textbook samplers on doubles leak) is opt-in, --checks float or
--checks all,float.

A sampler that draws from a generator of its own (OpenDP, python-dp) cannot be
reproduced from --seed: it is audited on fresh draws and sanity.determinism is a
WARN row (numbers differ run to run); --require-seeded makes that a failure.

Exit codes: 0 every check passed (WARN rows included); 1 a check failed (e.g. a
privacy violation, or a sampler that ignores its rng: every user gets the same
noise); 2 usage error, bad input, or user code that breaks the protocol
(sanity.shape: wrong number or shape of reports, an exception in the user's
code, a malformed supports/key; sanity.finite: NaN or infinite reports; a
method that raised or returned what the protocol does not allow, named on
stderr); 3 with --require-seeded, the sampler is not reproducible given its
seed, so no row of the report can be reproduced; 4 inconclusive: nothing
failed, but a check could not see (e.g. a report column of fresh hash seeds
and no supports/key declared), so the claim is neither confirmed nor refuted.
"""
from __future__ import annotations

import argparse
import sys
from dataclasses import replace

from ..audits.kernel.engines import engine_name
from ..audits.kernel.result import Status
from ..audits.verify.orchestrator import (CHECKS, DEFAULT_ALPHA, DEFAULT_SAMPLES, DEFAULT_SEED, AuditSettings,
                                          check_report_memory, parse_checks, verify)
from ..mechanisms import make
from ..mechanisms.validation import MAX_CATEGORIES, MAX_DIMENSION
from ._common import add_engine_options, add_output_options, emit, engine_for, parse_param, progress_bar
from .options import confidence, integer, probability, real, seed

#: Exit code of a sampler that is not reproducible given its seed, under --require-seeded (distinct from 1).
EXIT_NOT_REPRODUCIBLE = 3
#: Exit code of a sampler that breaks the protocol (the shape check failed): bad input, not a privacy finding.
EXIT_PROTOCOL = 2

#: Mechanism parameters with their own option (everything else: --param key=value).
_NAMED = {"d": integer(1, MAX_DIMENSION), "k": str, "m": str, "alpha": real(), "beta": real(), "delta": probability,
          "c": integer(2, MAX_CATEGORIES), "f": integer(2, MAX_CATEGORIES), "calibration": str}


def register(sub) -> None:
    p = sub.add_parser("verify", help="audit one mechanism: privacy, moments, distribution, structure",
                       description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("mechanism", metavar="MECH", help="registered name, or package.module:factory")
    p.add_argument("--eps", type=real(0.0, low_open=True), required=True, help="claimed privacy budget (> 0)")
    for name, kind in _NAMED.items():
        p.add_argument(f"--{name}", type=kind, default=None,
                       help=f"mechanism parameter {name} (default: the mechanism's own)")
    p.add_argument("--param", action="append", default=[], metavar="KEY=VALUE", type=parse_param,
                   help="any other mechanism or factory parameter (repeatable)")
    p.add_argument("--samples", type=integer(1000), default=DEFAULT_SAMPLES,
                   help="draws per input, >= 1000 (default %(default)s)")
    p.add_argument("--seed", type=seed, default=DEFAULT_SEED, help="seed of all sampling (default %(default)s)")
    p.add_argument("--confidence", type=confidence, default=1.0 - DEFAULT_ALPHA,
                   help="1 - family-wise false-alarm rate, in (0, 1) (default %(default)s)")
    add_engine_options(p)
    p.add_argument("--require-seeded", action="store_true",
                   help="fail (exit 3) when the sampler is not reproducible from --seed, instead of a WARN row")
    p.add_argument("--checks", default="all", type=_checks, metavar="|".join(CHECKS + ("all",)),
                   help="audits to run: 'all' (default: privacy,moments,distribution) or a comma-separated subset; "
                        "'float' (the bits of float reports) is opt-in ('all,float'); sanity checks always run")
    add_output_options(p)
    p.set_defaults(func=run)


def _checks(text):
    try:
        return parse_checks(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from exc


def _exit_code(report, code: int) -> int:
    """``code`` (the verdict's), unless the sampler breaks the protocol (2: no statistics ran) or, under
    --require-seeded, is not reproducible from its seed (3). A sampler that ignores its rng also fails
    sanity.determinism, but that is a finding about the mechanism (every user gets the same noise): the verdict's 1."""
    failed = {r.name: r for r in report.results if r.status == Status.FAIL}
    if failed.keys() & {"sanity.shape", "sanity.finite"}:
        return EXIT_PROTOCOL
    determinism = failed.get("sanity.determinism")
    if determinism is not None and not determinism.details["reproducible"]:
        return EXIT_NOT_REPRODUCIBLE
    return code


def _protocol_error(report) -> str:
    """The stderr line of a report whose sampler breaks the protocol: the failed sanity row's finding."""
    row = next(r for r in report.results if r.name in ("sanity.shape", "sanity.finite") and r.status == Status.FAIL)
    return f"ldp-audit: error: {row.name}: {row.explanation}"


def _k_value(text):
    return int(text) if isinstance(text, str) and text.lstrip("-").isdigit() else text


def _extra_params(pairs, named: dict) -> dict:
    """``--param KEY=VALUE`` pairs; a key that has its own option (--eps, --d, ...) or comes twice is refused."""
    extra = {}
    for key, value in pairs:
        if key == "eps":
            raise ValueError(f"--param eps={value}: the claimed budget has its own option, use --eps {value}")
        if key in named or key in extra:
            where = f"--{key}" if key in named else "an earlier --param"
            raise ValueError(f"--param {key}={value}: parameter {key} is already given by {where}")
        extra[key] = value
    return extra


def run(args, console) -> int:
    params = {name: getattr(args, name) for name in _NAMED if getattr(args, name) is not None}
    for key in ("k", "m"):
        if key in params:
            params[key] = _k_value(params[key])
    params.update(_extra_params(args.param, params))
    # the pickle check of a process pool; Dask ships closures too (cloudpickle) and checks its workers itself
    pool = engine_name(args.engine, args.workers) == "processes"
    settings = AuditSettings(args.samples, args.seed, round(1.0 - args.confidence, 12),
                             args.workers if pool else 1, args.require_seeded)
    if ":" in args.mechanism:
        from ..external import adapted, load_external

        mechanism = adapted(load_external(args.mechanism, args.eps, params))
    else:
        mechanism = make(args.mechanism, eps=args.eps, **params)
    check_report_memory(mechanism, settings, args.checks, names=("--d", "--samples", "--checks privacy"))

    with engine_for(args, mechanism) as engine, progress_bar(
            console, enabled=not (args.json or args.markdown), description=f"auditing {args.mechanism}") as advance:
        report = verify(mechanism, settings, progress=advance, checks=args.checks, planned=advance.plan)
    report = replace(report, settings={**report.settings, **engine.settings()})
    code = _exit_code(report, emit(report, args, console))
    if code == EXIT_PROTOCOL:  # the report says why on stdout; a CI log that shows only stderr must say it too
        print(_protocol_error(report), file=sys.stderr)
    return code
