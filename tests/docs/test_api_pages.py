"""The API reference covers the package: every public module of ``ldp_audit`` has one ``::: module`` line in
docs/api/, and every such line names a module that exists. A module added, moved or split without its page fails
here, without mkdocs (the strict site build would only catch the second half)."""
from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
API = ROOT / "docs" / "api"
DIRECTIVE = re.compile(r"^::: ([\w.]+)\s*$", re.M)


def package_modules() -> set[str]:
    """Dotted names of the package's modules and packages, less private ones (``_common``)."""
    names = set()
    for path in (ROOT / "ldp_audit").rglob("*.py"):
        parts = path.relative_to(ROOT).with_suffix("").parts
        parts = parts[:-1] if parts[-1] == "__init__" else parts
        if not any(part.startswith("_") for part in parts):
            names.add(".".join(parts))
    return names


def documented() -> list[str]:
    return [name for page in sorted(API.glob("*.md")) for name in DIRECTIVE.findall(page.read_text())]


def test_every_module_has_one_api_entry():
    listed = documented()
    assert sorted(name for name in set(listed) if listed.count(name) > 1) == []
    assert sorted(package_modules() - set(listed)) == []


def test_every_api_entry_names_a_module():
    assert sorted(set(documented()) - package_modules()) == []
