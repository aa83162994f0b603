"""
Inference module for STARLING.

Contains Bayesian Maximum Entropy (BME) reweighting functionality.
"""

from starling.structure.bme import BME, BMEResult, ExperimentalObservable

__all__ = [
    "BME",
    "BMEResult",
    "ExperimentalObservable",
]
