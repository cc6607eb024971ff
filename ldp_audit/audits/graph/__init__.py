"""Graph audits: propagation and aggregation error bounds on real graphs (``bounds``, ``aggregation``,
``dataset_bounds``), their repeated perturbations as sampling plans on the engines (``replicates``), dataset
integrity (``datasets``) and the guard on feature ranges (``feature_guard``)."""
