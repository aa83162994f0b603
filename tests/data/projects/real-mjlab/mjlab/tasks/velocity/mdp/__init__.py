from mjlab.envs.mdp import *  # noqa: F401, F403

from .curriculums import *  # noqa: F403
from .observations import *  # noqa: F403
from .rewards import *  # noqa: F403
from .terminations import *  # noqa: F403
from .velocity_command import *  # noqa: F403
