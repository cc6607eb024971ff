"""Graph data, propagation and the private graph-learning pipelines (extra ``graph``)."""
