from ultrack.tracks.gap_closing import close_tracks_gaps
from ultrack.tracks.graph import (
    add_track_ids_to_tracks_df,
    filter_short_sibling_tracks,
    get_paths_to_roots,
    get_subgraph,
    inv_tracks_df_forest,
    left_first_search,
    split_tracks_df_by_lineage,
    split_trees,
    tracks_df_forest,
)
from ultrack.tracks.sorting import (
    sort_track_ids,
    sort_trees_by_length,
    sort_trees_by_max_radius,
)
from ultrack.tracks.stats import (
    tracks_df_movement,
    tracks_length,
    tracks_profile_matrix,
)
