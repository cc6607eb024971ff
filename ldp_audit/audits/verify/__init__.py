"""What ``ldp-audit verify`` runs: the orchestrator (``orchestrator.verify``) and the non-privacy checks it
calls (``sanity``, ``moments``, ``distribution``); ``compare`` puts several mechanisms' variances side by side."""
