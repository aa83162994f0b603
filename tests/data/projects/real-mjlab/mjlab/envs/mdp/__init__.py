from . import dr as dr
from .actions import *  # noqa: F403
from .curriculums import *  # noqa: F403
from .events import *  # noqa: F403
from .metrics import *  # noqa: F403
from .observations import *  # noqa: F403
from .rewards import *  # noqa: F403
from .terminations import *  # noqa: F403
