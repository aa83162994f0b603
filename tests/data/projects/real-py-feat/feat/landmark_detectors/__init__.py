from .basenet_test import *  # noqa: F403
