"""Sub-commands of the ``ldp-audit`` CLI, one module each (see ``ldp_audit.cli``)."""
