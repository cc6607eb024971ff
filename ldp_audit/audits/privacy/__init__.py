"""Privacy checks: the white-box ratio bound from exact laws (``white_box``), the black-box lower bound from samples
(``black_box``, over the event ``search`` and its ``reports`` views), exact bounds of whole-report laws
(``report_law``, ``exact``), and the agreement of central-DP accountants (``accountants``)."""
