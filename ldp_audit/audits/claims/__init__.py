"""Paper claims: the registry of claims and the runner behind ``ldp-audit claims`` (``registry``), one module per
paper that registers its claims (``lpgnn``, ``ppgnn``, ``ldp_ge``, ``se_privgemb``), and where stored training
results are read (``stored_results``)."""
