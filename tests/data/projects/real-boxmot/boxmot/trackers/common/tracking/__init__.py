from boxmot.trackers.common.tracking.classes import (
    ClassCatalog,
    normalize_class_ids,
    normalize_class_names,
)
from boxmot.trackers.common.tracking.collections import (
    LIVE_STATE_GROUPS,
    TRACK_COLLECTION_ATTRS,
    TRACK_STATE_GROUPS,
    empty_track_collection_like,
    owner_has_track_collection,
    track_collection_attrs,
    tracks_from_mapping,
    tracks_from_owner,
    validate_track_group,
)
from boxmot.trackers.common.tracking.display import TrackDisplayMixin
from boxmot.trackers.common.tracking.formatting import TrackFormattingMixin
from boxmot.trackers.common.tracking.lifecycle import (
    joint_stracks,
    remove_duplicate_stracks,
    sub_stracks,
    track_duration,
    track_id,
)
from boxmot.trackers.common.tracking.per_class import ClassTrackState, PerClassUpdateMixin
from boxmot.trackers.common.tracking.records import (
    AssociationResult,
    TrackRecord,
)
from boxmot.trackers.common.tracking.track import (
    TrackIdAllocator,
    TrackLifecycleMixin,
    TrackMeta,
    TrackState,
    sync_track_meta,
)
from boxmot.trackers.common.tracking.visualization import VisualizationMixin

__all__ = (
    "AssociationResult",
    "ClassTrackState",
    "ClassCatalog",
    "LIVE_STATE_GROUPS",
    "PerClassUpdateMixin",
    "TRACK_COLLECTION_ATTRS",
    "TRACK_STATE_GROUPS",
    "TrackDisplayMixin",
    "TrackFormattingMixin",
    "TrackIdAllocator",
    "TrackLifecycleMixin",
    "TrackMeta",
    "TrackRecord",
    "TrackState",
    "VisualizationMixin",
    "empty_track_collection_like",
    "joint_stracks",
    "normalize_class_ids",
    "normalize_class_names",
    "owner_has_track_collection",
    "remove_duplicate_stracks",
    "sub_stracks",
    "sync_track_meta",
    "track_collection_attrs",
    "track_duration",
    "track_id",
    "tracks_from_mapping",
    "tracks_from_owner",
    "validate_track_group",
)
