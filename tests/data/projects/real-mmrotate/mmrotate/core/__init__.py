# Copyright (c) OpenMMLab. All rights reserved.
from .anchor import *  # noqa: F401, F403
from .bbox import *  # noqa: F401, F403
from .evaluation import *  # noqa: F401, F403
from .patch import *  # noqa: F401, F403
from .post_processing import *  # noqa: F401, F403
from .visualization import *  # noqa: F401, F403
