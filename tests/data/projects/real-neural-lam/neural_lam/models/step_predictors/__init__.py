"""
Step predictors for the Neural-LAM model.
"""

# Local
from .base import StepPredictor
