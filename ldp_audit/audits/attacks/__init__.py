"""Attacks as audits: how much an attacker learns, with a confidence interval, next to the bound LDP promises
(or a statement that LDP promises none). One module per attack, each returning ``CheckResult`` rows:

* ``own_report``: Bayes attribute inference from a user's own report (lpgnn C12);
* ``averaging``: repeated queries, memoised or not, and differencing (lpgnn C11);
* ``level_leak``: PPGNN's privacy level from its report (ppgnn C10-C11, E4-E5);
* ``neighbour_vote``: majority vote over neighbours on a real graph (ppgnn A9, C18; not bounded by LDP);
* ``label_plurality``: plurality of neighbours' randomized-response labels (lpgnn C16);
* ``not_covered``: what the guarantees do not protect (edges, labels, the sampling mask).

``bayes`` holds what they share: Bayes accuracy, the LDP ceiling, the rows.
"""
