from . import float32
from . import float16
from . import int32
