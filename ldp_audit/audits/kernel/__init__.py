"""The audits' kernel: check results and reports (``result``), statistical tests and intervals (``stats``),
seeded Monte Carlo plans (``sampling``) and the engines that run them (``engines``). Imports no wing."""
