"""
This code provides a modular guidance engine that can be plugged into
`protenix.model.generator.sample_diffusion`.
"""

from .config import Schedule, TFGConfig, parse_tfg_config, schedule_from_cfg
from .engine import TFGEngine
