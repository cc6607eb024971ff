"""Privacy checks: white-box log-ratio bounds from exact laws, the black-box event search and its report views,
exact bounds, and the agreement of central-DP accountants."""
