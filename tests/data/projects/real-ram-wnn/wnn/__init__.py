"""WNN - Weightless Neural Networks."""

from wnn.logger import Logger, create_logger
from wnn.progress import ProgressTracker, PopulationTracker, ProgressStats

__all__ = [
	'Logger', 'create_logger',
	'ProgressTracker', 'PopulationTracker', 'ProgressStats',
]
