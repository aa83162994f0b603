from . import config, transform
