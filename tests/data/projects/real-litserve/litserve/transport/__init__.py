from .process_transport import MPQueueTransport
from .zmq_transport import ZMQTransport

__all__ = ["ZMQTransport", "MPQueueTransport"]
