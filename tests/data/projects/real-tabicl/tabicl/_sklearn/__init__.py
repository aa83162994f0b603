"""Private. Access estimators via ``from tabicl import TabICLClassifier, TabICLRegressor``."""

from .classifier import TabICLClassifier
from .regressor import TabICLRegressor
