from ultrack.api.database import Experiment, ExperimentStatus
from ultrack.api.main import start_server
