__all__ = [
    "crowding_distance",
    "nd_environmental_selection",
    "non_dominate_rank",
    "ref_vec_guided",
    "select_rand_pbest",
    "tournament_selection",
    "tournament_selection_multifit",
]

from .find_pbest import select_rand_pbest
from .non_dominate import crowding_distance, nd_environmental_selection, non_dominate_rank
from .rvea_selection import ref_vec_guided
from .tournament_selection import tournament_selection, tournament_selection_multifit
