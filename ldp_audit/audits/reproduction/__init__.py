"""Reproduction reports: each paper's tables and figures, printed numbers beside measured ones with a verdict per
cell. One module per paper (plus its figures)."""
