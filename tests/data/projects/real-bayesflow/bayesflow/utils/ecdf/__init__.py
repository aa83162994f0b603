from .simultaneous_ecdf_bands import simultaneous_ecdf_bands
from .pointwise_ecdf_bands import pointwise_ecdf_bands
from .ranks import fractional_ranks, distance_ranks
