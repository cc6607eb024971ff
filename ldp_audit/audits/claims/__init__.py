"""Paper claims: the registry that runs a paper's providers (``registry``) and one module per paper that checks
its claims (``lpgnn``, ``ppgnn``, ``ldp_ge``, ``se_privgemb``)."""
