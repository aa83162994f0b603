from .v015 import *  # noqa: F401,F403
