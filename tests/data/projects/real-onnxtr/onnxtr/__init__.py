from . import io, models, contrib, transforms, utils
from .version import __version__  # noqa: F401
