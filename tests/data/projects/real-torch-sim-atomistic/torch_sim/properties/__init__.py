"""Correlation property calculators for simulation analysis.

Currently includes:

- CorrelationCalculator: Calculator for time correlation functions.
- VelocityAutoCorrelation: Calculator for velocity autocorrelation.
"""

# ruff: noqa: F401
from .correlations import CorrelationCalculator, VelocityAutoCorrelation
