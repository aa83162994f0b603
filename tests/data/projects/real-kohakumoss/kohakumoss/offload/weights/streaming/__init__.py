"""The parts of `WeightStream`: slot ring, H2D copier, span timer, host gradient sink
and cross-rank block reducer. See docs/internals/offload.md#weight-streaming."""

from kohakumoss.offload.weights.streaming.copier import H2DCopier
from kohakumoss.offload.weights.streaming.device import DeviceStreams
from kohakumoss.offload.weights.streaming.grads import GradSink
from kohakumoss.offload.weights.streaming.reduce import BlockReducer
from kohakumoss.offload.weights.streaming.ring import SlotRing
from kohakumoss.offload.weights.streaming.timing import SpanTimer, read_timing

__all__ = [
    "BlockReducer",
    "DeviceStreams",
    "GradSink",
    "H2DCopier",
    "SlotRing",
    "SpanTimer",
    "read_timing",
]
