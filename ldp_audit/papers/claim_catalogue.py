"""Which spec ids each paper has, what an id without a row still needs, and the coverage table of
``ldp-audit claims --coverage``.

The data live in ``claim_catalogue.json`` beside this module: ``spec_ids`` (paper -> spec id -> the spec's words
for it, transcribed from the specs by :func:`parse_spec_ids`; a test re-derives it from the spec files when they
are present) and ``needs`` (paper -> spec id -> what the id waits for before a row can check it, or why no row
computes anything). A claims row says which ids it checks in its ``spec_ids`` field, set from the ids its claim
is registered with (:func:`ldp_audit.audits.claims.registry.claim`), so a new row shows up in the coverage table
as soon as it is registered.
"""
from __future__ import annotations

import json
import re
from importlib import resources

_ID = r"[CEMAB]\d+"
_HEAD = re.compile(rf"^(?:#{{2,4}}\s+|[*-]\s+\*\*|\*\*|\|\s*)({_ID})(?![\w])(.*)$")


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


def _load() -> tuple[dict[str, tuple[tuple[str, str], ...]], dict[str, dict[str, str]]]:
    data = json.loads(resources.files(__package__).joinpath("claim_catalogue.json").read_text(encoding="utf-8"))
    return {paper: tuple(ids.items()) for paper, ids in data["spec_ids"].items()}, data["needs"]


#: paper -> (spec id, the spec's words) for every id its spec defines, in the spec's order; and paper -> spec
#: id -> what it needs. Ids with a row and no ``NEEDS`` entry are fully checked; ids with neither show "a check
#: (not written yet)".
SPEC_IDS, NEEDS = _load()


def ids_of(paper: str) -> set[str]:
    """Every id the spec of ``paper`` defines."""
    return {spec_id for spec_id, _ in SPEC_IDS[paper]}


def coverage(paper: str, rows=None, registered=None) -> list[dict]:
    """One entry per spec id of ``paper`` (every C and E id; M, A and B ids that a row or a claim checks): the
    rows that check it and their worst status (fail > inconclusive > pass > info) when the claims ran (``rows``),
    else the registered claims that check it (``registered``: ``{claim name: its spec ids}``, status
    "registered"), or what the id still needs."""
    by_id: dict[str, list[str]] = {}
    statuses: dict[str, set[str]] = {}
    if rows is not None:
        for row in rows:
            for spec_id in row.spec_ids or ():
                by_id.setdefault(spec_id, []).append(row.name)
                statuses.setdefault(spec_id, set()).add(row.status.value)
    else:
        for name, spec_ids in (registered or {}).items():
            for spec_id in spec_ids:
                by_id.setdefault(spec_id, []).append(name)
                statuses.setdefault(spec_id, set()).add("registered")
    order = ("fail", "inconclusive", "pass", "info", "registered")
    entries = []
    for spec_id, words in SPEC_IDS[paper]:
        checked = by_id.get(spec_id, [])
        if not checked and spec_id[0] not in "CE":
            continue
        status = next((s for s in order if s in statuses.get(spec_id, ())), "needs")
        needs = NEEDS.get(paper, {}).get(spec_id, "" if checked else "a check (not written yet)")
        entries.append({"id": spec_id, "spec": words, "rows": checked, "status": status, "needs": needs})
    return entries
