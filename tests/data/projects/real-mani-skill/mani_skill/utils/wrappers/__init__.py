from .action_repeat import ActionRepeatWrapper
from .cached_reset import CachedResetWrapper
from .flatten import (
    FlattenActionSpaceWrapper,
    FlattenObservationWrapper,
    FlattenRGBDObservationWrapper,
)
from .frame_stack import FrameStack
from .gymnasium import CPUGymWrapper
from .record import RecordEpisode
