from .similarity_map_utils import (
    get_similarity_maps_from_embeddings,
    normalize_similarity_map,
)
from .similarity_maps import (
    plot_all_similarity_maps,
    plot_similarity_map,
)
