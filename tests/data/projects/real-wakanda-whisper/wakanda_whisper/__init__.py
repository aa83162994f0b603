from .version import __version__
from .languages import SUPPORTED_LANGUAGES
from .base import from_pretrained


