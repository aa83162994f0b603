from .experiment import Experiment
from .loggers import NeptuneLogger
