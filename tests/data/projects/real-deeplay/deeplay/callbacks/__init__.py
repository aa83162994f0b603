from .history import LogHistory
from .progress import RichProgressBar, TQDMProgressBar
