from ultrack.core.export.ctc import to_ctc
from ultrack.core.export.exporter import export_tracks_by_extension
from ultrack.core.export.geff import to_geff, to_geff_from_database
from ultrack.core.export.networkx import to_networkx, tracks_layer_to_networkx
from ultrack.core.export.trackmate import to_trackmate, tracks_layer_to_trackmate
from ultrack.core.export.tracks_layer import to_tracks_layer
from ultrack.core.export.zarr import tracks_to_zarr
