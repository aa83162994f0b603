from .device import available, device_count, synchronize, compute_capability, properties
from .device import set_device, current_device, device
from .memory import malloc, free, malloc_async, free_async, malloc_host, free_host
from .memory import memcpy, memcpy_async, memset, memset_async, memory_info
from .stream import Stream, ExternalStream, stream, default_stream, current_stream
from .event import Event
from .capability import capability
