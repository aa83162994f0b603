from .cluster_averages import compute_cluster_averages, get_cluster_averages_df
from .select_features import select_features

__all__ = ["compute_cluster_averages", "get_cluster_averages_df", "select_features"]
