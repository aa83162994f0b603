"""Private. Access TabICLUnsupervised via ``from tabicl import TabICLUnsupervised``."""

from .unsupervised import TabICLUnsupervised
