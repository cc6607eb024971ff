"""What each seed paper claims, as printed: formulas and tables with their equation numbers.

Nothing here is used to perturb data; the audits compare these printed claims with the corrected
implementations in ``ldp_audit.mechanisms`` and ``ldp_audit.models``.
"""
