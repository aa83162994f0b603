# ruff: noqa: F401

from .track_graph import TrackGraph
from .tracking import (
    build_graph,
    track_greedy,
)
from .utils import (
    apply_solution_graph_to_masks,
    ctc_to_graph,
    ctc_to_napari_tracks,
    graph_to_ctc,
    graph_to_edge_table,
    graph_to_napari_tracks,
    linear_chains,
    write_to_geff,
)
