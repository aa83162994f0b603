from .config import load_default_config, load_config
from .config_validator import ConfigValidator, ConfigurationError, validate_config
from .regression_ranges import compute_adaptive_ranges, suggest_config_ranges

__all__ = [
    'load_default_config',
    'load_config',
    'ConfigValidator',
    'ConfigurationError',
    'validate_config',
    'compute_adaptive_ranges',
    'suggest_config_ranges',
]
