from . import io, models, datasets, contrib, transforms, utils
from .version import __version__  # noqa: F401
