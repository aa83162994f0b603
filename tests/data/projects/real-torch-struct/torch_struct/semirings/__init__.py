from .semirings import *  # noqa: F401,F403
from .sparse_max import *  # noqa: F401,F403
from .fast_semirings import *  # noqa: F401,F403
from .checkpoint import *  # noqa: F401,F403
from .sample import *  # noqa: F401,F403
