# Models
from .cky import *  # noqa: F401,F403
from .cky_crf import *  # noqa: F401,F403
from .deptree import *  # noqa: F401,F403
from .linearchain import *  # noqa: F401,F403
from .semimarkov import *  # noqa: F401,F403
from .alignment import *  # noqa: F401,F403

# Semirings
from .semirings import *  # noqa: F401,F403

# Distributions
from .distributions import *  # noqa: F401,F403
from .autoregressive import *  # noqa: F401,F403

version = "0.5"
