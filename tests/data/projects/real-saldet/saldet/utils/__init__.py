from .device import device
from .time import now
