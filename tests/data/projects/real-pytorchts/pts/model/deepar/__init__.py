from .deepar_estimator import DeepAREstimator
from .deepar_network import DeepARNetwork, DeepARTrainingNetwork
