from pt_kmeans.pt_kmeans import compute_distance
from pt_kmeans.pt_kmeans import hierarchical_kmeans
from pt_kmeans.pt_kmeans import initialize_centers
from pt_kmeans.pt_kmeans import kmeans
from pt_kmeans.pt_kmeans import predict
from pt_kmeans.pt_kmeans import split_cluster
from pt_kmeans.version import __version__

__all__ = [
    "compute_distance",
    "hierarchical_kmeans",
    "initialize_centers",
    "kmeans",
    "predict",
    "split_cluster",
    "__version__",
]
