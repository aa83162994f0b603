__version__ = '1.0.7'

from .utils.run_helper_lightning import run
from .utils.estimation_output import EstimationOutput