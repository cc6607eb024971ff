"""mkdocs hook: the package's docstrings cite names with Sphinx roles (:func:`name`, :class:`Name`), which
mkdocstrings renders as literal text before the code span; keep the code span, drop the role."""
import re

ROLE = re.compile(r":(?:func|class|meth|attr|mod|data|exc|obj):(<code>)")


def on_page_content(html, **kwargs):
    return ROLE.sub(r"\1", html)
