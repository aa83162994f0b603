"""Buffer utilities."""

from mjlab.utils.buffers.circular_buffer import CircularBuffer as CircularBuffer
from mjlab.utils.buffers.delay_buffer import DelayBuffer as DelayBuffer
