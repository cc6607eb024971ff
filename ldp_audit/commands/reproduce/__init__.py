"""``ldp-audit reproduce``: the command (``command``), what every paper's target shares (``common``), and one
module per paper's figures and tables."""
from .command import register, run

__all__ = ["register", "run"]
