from . import localization_algorithms
from . import position_estimate
from . import spatial_event
from . import synchronized_recorder_array
from . import audiomoth_sync
from .synchronized_recorder_array import SynchronizedRecorderArray
from .spatial_event import SpatialEvent, events_to_df, df_to_events
from .localization_algorithms import (
    localize,
    gillette_localize,
    soundfinder_localize,
    least_squares_localize,
    SPEED_OF_SOUND,
)
from .position_estimate import PositionEstimate
