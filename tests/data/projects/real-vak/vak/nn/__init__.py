from . import functional  # noqa: F401, F403
from .loss import *  # noqa: F401, F403
from .modules import *  # noqa: F401, F403
