from xitorch._core.editable_module import *
from xitorch._core.pure_function import *
from xitorch._core.linop import *
from xitorch._core.packer import *
from xitorch.debug.modes import *
from xitorch._utils.exceptions import *

from xitorch.version import get_version as _get_version
__version__ = _get_version()
