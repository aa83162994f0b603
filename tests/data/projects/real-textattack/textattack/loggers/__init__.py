""".. _loggers:

Misc Loggers: Loggers track, visualize, and export attack results.
===================================================================
"""

from .csv_logger import CSVLogger
from .file_logger import FileLogger
from .logger import Logger
from .visdom_logger import VisdomLogger
from .weights_and_biases_logger import WeightsAndBiasesLogger
from .json_summary_logger import JsonSummaryLogger

# AttackLogManager must be imported last, since it imports the other loggers.
from .attack_log_manager import AttackLogManager
