"""
Feature extractor modules: time domain, frequency domain, cepstral, harmonic and linear prediction.
"""
from . import cepstral_features, egemaps, frequency_domain, harmonic_features, linear_prediction, time_domain

__all__ = [
    'time_domain',
    'frequency_domain',
    'cepstral_features',
    'harmonic_features',
    'linear_prediction',
    'egemaps',
]
