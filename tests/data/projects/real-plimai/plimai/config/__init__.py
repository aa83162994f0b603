"""
plimai.config

This package contains configuration management utilities and classes.
"""

# Example placeholder for a config class
def get_default_config():
    """Return a default configuration dictionary."""
    return {
        'seed': 42,
        'device': 'cuda',
        'log_level': 'INFO',
    }
