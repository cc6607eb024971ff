"""The registry of stream keys (ldp_audit/streams.py): no two streams of one audit share a key, and no call in the
package names a stream by a bare number."""
from __future__ import annotations

import ast
from itertools import combinations
from pathlib import Path

import pytest

import ldp_audit
from ldp_audit import streams
from ldp_audit.streams import FAMILIES, StreamFamily

#: Calls that take a stream key, and which of their positional arguments (or keywords) are parts of it.
KEY_ARGUMENTS = {"rng_for": (slice(1, None), ()), "torch_seed": (slice(1, None), ()),
                 "chunk_rng": (slice(1, 2), ("stream",)), "Draws": (slice(3, 4), ("stream",)),
                 "map_reduce": (slice(3, 4), ("stream",)), "count_correct": (slice(4, 5), ("stream",))}


def test_every_family_has_its_own_name():
    names = [family.name for family in FAMILIES]
    assert len(names) == len(set(names)) and len(FAMILIES) > 30


def test_no_two_streams_of_one_audit_share_a_key():
    clashes = [(a.name, b.name) for a, b in combinations(FAMILIES, 2) if a.scope == b.scope and a.overlaps(b)]
    assert clashes == []


def test_overlap_is_position_by_position_and_length_aware():
    final = streams.SEARCH_FINAL
    assert StreamFamily("old sanity", "verify", (900,), tail=1).overlaps(final)  # the collision that was moved
    assert StreamFamily("x", "verify", (999,), tail=1).overlaps(final)
    assert not StreamFamily("x", "verify", (1000,), tail=1).overlaps(final)
    assert not StreamFamily("x", "verify", (900,)).overlaps(final)  # (900,) is shorter than (900, chunk)
    replicates = streams.PROPAGATED_REPLICATES  # (chunk,): meets every one-number key
    assert StreamFamily("old flexprop", "bounds", (1,)).overlaps(replicates)
    assert not streams.FLEXPROP_LEVELS.overlaps(replicates)
    assert StreamFamily("old mae", "bounds", (0,), width=3, tail=1).overlaps(streams.NEIGHBOURHOOD_USERS)


def test_a_member_outside_its_family_is_refused():
    assert streams.SEARCH_FINAL.key(0) == (900,) and streams.SEARCH_FINAL.key(99) == (999,)
    assert streams.FEATURE_LEVELS.key() == (1, 1) and streams.PROPAGATED_REPLICATES.key() == ()
    with pytest.raises(ValueError, match="member 100"):
        streams.SEARCH_FINAL.key(100)
    with pytest.raises(ValueError, match="prefix"):
        StreamFamily("x", "s", (), width=2)


def _numbers(node: ast.AST) -> bool:
    """Whether an argument spells a key with a bare number: 7, -7, (1, i), [0]."""
    if isinstance(node, ast.UnaryOp):
        node = node.operand
    if isinstance(node, (ast.Tuple, ast.List)):
        return any(_numbers(element) for element in node.elts)
    return isinstance(node, ast.Constant) and isinstance(node.value, int) and not isinstance(node.value, bool)


def literal_keys(source: str, filename: str = "<source>") -> list[str]:
    """``file:line call`` for every call of :data:`KEY_ARGUMENTS` that names a key part by a bare number."""
    found = []
    for node in ast.walk(ast.parse(source, filename)):
        if not isinstance(node, ast.Call):
            continue
        name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", None)
        if name not in KEY_ARGUMENTS:
            continue
        positions, keywords = KEY_ARGUMENTS[name]
        parts = node.args[positions] + [k.value for k in node.keywords if k.arg in keywords]
        if any(_numbers(part) for part in parts):
            found.append(f"{filename}:{node.lineno} {ast.unparse(node)}")
    return found


def test_the_scan_finds_bare_numbers():
    assert literal_keys("rng_for(seed, 900, i)") and literal_keys("Draws(r, n, seed, (1, i))")
    assert literal_keys("count_correct(b, n, w, seed, 9)") and literal_keys("map_reduce(r, n, seed, stream=-3)")
    assert not literal_keys("rng_for(11)")  # a literal seed is not a key
    assert not literal_keys("rng_for(seed, *streams.SANITY.key(), index)")


def test_no_call_in_the_package_names_a_stream_by_a_bare_number():
    package = Path(ldp_audit.__file__).parent
    found = [hit for path in sorted(package.rglob("*.py"))
             for hit in literal_keys(path.read_text(), str(path.relative_to(package.parent)))]
    assert found == []
