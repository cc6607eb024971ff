"""The package's layers, enforced: an import goes only downward, and no module imports itself in a circle.

Layers, lowest first (DESIGN.md): seeding, streams and files < mechanisms < accounting < models < audits < external
< face (cli, commands, testing). ``papers`` is a leaf: it imports nothing of the package and only ``audits`` and the
face import it. Imports inside functions count too: a lazy import is still a dependency.
"""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "ldp_audit"
LAYERS = {"seeding": 0, "streams": 0, "files": 0, "mechanisms": 1, "accounting": 2, "models": 3, "audits": 4,
          "external": 5, "cli": 6, "commands": 6, "testing": 6, "__init__": 6, "__main__": 6}
#: Who may import the leaf ``papers``.
PAPERS_USERS = {"audits", "cli", "commands", "testing", "__init__", "papers"}


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: Path) -> set[str]:
    """Absolute names of the ldp_audit modules that ``path`` imports (relative imports resolved)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = _module_name(path) if path.name == "__init__.py" else _module_name(path).rpartition(".")[0]
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names if a.name.startswith("ldp_audit")}
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[:len(base) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if target.startswith("ldp_audit"):
                if target != "ldp_audit":  # the root package is loaded by any import of the package
                    found.add(target)
                found |= {f"{target}.{a.name}" for a in node.names}
    return found


def _top(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


MODULES = {_module_name(p): p for p in PACKAGE.rglob("*.py")}
EDGES = {name: {m for m in _imports(path) if m in MODULES and m != name} for name, path in MODULES.items()}


def layer_violations(edges: dict[str, set[str]]) -> list[str]:
    bad = []
    for source, targets in edges.items():
        low = _top(source)
        for target in targets:
            high = _top(target)
            if high == "papers":
                if low not in PAPERS_USERS:
                    bad.append(f"{source} -> {target} (papers/ is for audits and the face only)")
            elif low == "papers":
                bad.append(f"{source} -> {target} (papers/ is a leaf)")
            elif LAYERS.get(high, 99) > LAYERS.get(low, -1):
                bad.append(f"{source} -> {target} (layer {low} may not import {high})")
    return sorted(bad)


def import_cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan), i.e. import circles."""
    index, low, stack, on_stack, cycles, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in edges.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                cycles.append(sorted(component))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return cycles


def _package_edges(edges):
    """Imports of a package's ``__init__`` re-exporting its own modules are not circles of meaning."""
    return {s: {t for t in ts if not (MODULES[s].name == "__init__.py" and t.startswith(s + "."))}
            for s, ts in edges.items()}


def test_every_import_goes_downward():
    assert layer_violations(EDGES) == []


def test_no_import_circles():
    assert import_cycles(_package_edges(EDGES)) == []


def test_the_checker_sees_an_upward_import_and_a_circle():
    """The rule has power: a model importing an audit, papers importing a model, and a circle are caught."""
    edges = {"ldp_audit.models.x": {"ldp_audit.audits.y"}, "ldp_audit.papers.p": {"ldp_audit.models.x"},
             "ldp_audit.audits.y": set()}
    assert len(layer_violations(edges)) == 2
    assert import_cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


@pytest.mark.parametrize("layer", ["mechanisms", "accounting", "models", "audits"])
def test_each_layer_exists(layer):
    assert any(_top(m) == layer for m in MODULES)


# ----- inside the layers: the audits' wings, and the commands ------------------------------------------------------

#: The wings of ``audits``, lowest first: the kernel imports no wing; privacy and graph are the building blocks;
#: verify and the attacks use them; reproduction compares trained runs with the papers; claims (one function per
#: checkable claim of a paper) may read every wing below it. An import between wings goes strictly downward.
AUDIT_WINGS = {"kernel": 0, "privacy": 1, "graph": 1, "verify": 2, "attacks": 2, "reproduction": 3, "claims": 4}
#: The modules of ``commands`` that are not commands: what every command may share.
SHARED_COMMAND_MODULES = {"_common", "options", "render", "artefact_listing"}


def _part(module: str, depth: int) -> str:
    parts = module.split(".")
    return parts[depth] if len(parts) > depth else "__init__"


def wing_violations(edges: dict[str, set[str]]) -> list[str]:
    """Imports between two wings of ``audits`` that do not go downward, and commands importing another command
    (what two commands share belongs in a shared module)."""
    bad = []
    for source, targets in edges.items():
        for target in targets:
            if _top(source) == _top(target) == "audits":
                low, high = _part(source, 2), _part(target, 2)
                if low != high and AUDIT_WINGS.get(high, 99) >= AUDIT_WINGS.get(low, -1):
                    bad.append(f"{source} -> {target} (audits/{low} may not import audits/{high})")
            elif _top(source) == _top(target) == "commands":
                low, high = _part(source, 2), _part(target, 2)
                if low != high and high not in SHARED_COMMAND_MODULES and low not in SHARED_COMMAND_MODULES:
                    bad.append(f"{source} -> {target} (a command imports another command; share it through "
                               f"{', '.join(sorted(SHARED_COMMAND_MODULES))})")
    return sorted(bad)


def test_audit_wings_and_commands_import_only_downward():
    assert wing_violations(EDGES) == []


def test_the_wing_rule_sees_an_arrow_back_up():
    edges = {"ldp_audit.audits.reproduction.se_privgemb": {"ldp_audit.audits.claims.se_privgemb"},
             "ldp_audit.audits.kernel.stats": {"ldp_audit.audits.privacy.search"},
             "ldp_audit.audits.claims.lpgnn": {"ldp_audit.audits.reproduction.lpgnn", "ldp_audit.audits.kernel.stats"},
             "ldp_audit.commands.reproduce.command": {"ldp_audit.commands.train", "ldp_audit.commands.options"}}
    assert wing_violations(edges) == [
        "ldp_audit.audits.kernel.stats -> ldp_audit.audits.privacy.search (audits/kernel may not import audits/privacy)",
        "ldp_audit.audits.reproduction.se_privgemb -> ldp_audit.audits.claims.se_privgemb (audits/reproduction may not "
        "import audits/claims)",
        "ldp_audit.commands.reproduce.command -> ldp_audit.commands.train (a command imports another command; share it "
        "through _common, artefact_listing, options, render)"]


@pytest.mark.parametrize("wing", sorted(AUDIT_WINGS))
def test_each_audit_wing_exists(wing):
    assert any(_part(m, 2) == wing for m in MODULES if _top(m) == "audits")
