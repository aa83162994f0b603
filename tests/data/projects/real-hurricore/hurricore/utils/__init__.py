from hurricore.utils.config_base import ConfigBase  # noqa: F401
from hurricore.utils.context import Context  # noqa: F401
from hurricore.utils.dummy_object import DummyObject  # noqa: F401
from hurricore.utils.logger import Logger  # noqa: F401
from hurricore.utils.config_utils import *  # noqa: F403
from hurricore.utils.easy_ops import *  # noqa: F403
from hurricore.utils.misc import *  # noqa: F403
from hurricore.utils.collators import *  # noqa: F403