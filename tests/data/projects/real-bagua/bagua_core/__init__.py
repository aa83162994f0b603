from . import _environment

_environment._preload_libraries()
from .bagua_core import *  # noqa: F401,E402,F403
from .bagua_install_deps import install_deps  # noqa: F401,E402,F403
