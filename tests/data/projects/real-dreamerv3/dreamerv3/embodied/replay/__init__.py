from .generic import Generic
from .reverb import Reverb
from .replays import Uniform
from .naive_chunks import NaiveChunks
from . import selectors
from . import limiters
