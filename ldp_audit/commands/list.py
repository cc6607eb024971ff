"""``ldp-audit list``: the registered mechanisms, their parameters and paper references."""
from __future__ import annotations

import json

from ..mechanisms import available


def register(sub) -> None:
    p = sub.add_parser("list", help="list mechanisms, parameters and paper references")
    p.add_argument("--json", action="store_true", help="print JSON instead of a table")
    p.set_defaults(func=run)


def run(args, console) -> int:
    infos = available()
    if args.json:
        print(json.dumps([{"name": i.name, "summary": i.summary, "reference": i.reference,
                           "high_dimensional": i.high_dimensional,
                           "params": [{"name": p.name, "default": repr(p.default), "allowed": p.allowed,
                                       "help": p.help} for p in i.params]} for i in infos], indent=2))
        return 0
    from rich.markup import escape
    from rich.table import Table

    table = Table(title="ldp-audit mechanisms")
    for column in ("name", "summary", "parameters (default; allowed)", "paper"):
        table.add_column(column, overflow="fold")
    for i in infos:
        params = "\n".join(f"{p.name}={p.default!r}; {p.allowed}" for p in i.params)
        table.add_row(*(escape(text) for text in (i.name, i.summary, params, i.reference)))  # "[a, b]^d" as written
    console.print(table)
    return 0
