"""wm_transport — generalized WebRTC video egress for world-model serving apps.

Any app whose engine exposes a settable `frame_sink` attribute (called from the
producer thread with HWC uint8 RGB frames) gets zero-freeze WebRTC by routing
two WS message types through RtcSeatManager. See README.md for the wire
contract and adoption guide. JPEG/WS remains the universal fallback.
"""

from .config import RtcConfig, VIDEO_CLOCK, DEFAULT_STUN  # noqa: F401
from .publisher import RtcPublisher, rtc_available  # noqa: F401
from .session import RtcSeatManager  # noqa: F401
from .track import WMVideoTrack  # noqa: F401
