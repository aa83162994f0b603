from .classification import *  # noqa: F401, F403
from .distance import *  # noqa: F401, F403
