from oml.functional.metrics import calc_topological_metrics
from oml.metrics.embeddings import (
    EmbeddingMetrics,
    calc_fnmr_at_fmr_rr,
    calc_retrieval_metrics_rr,
)
