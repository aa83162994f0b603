# Genie package
from .main import main
from .utils import (
    parse_arguments
)

# Import reconstruction functions from scripts
from scripts import reconstruct_at_timesteps, reconstruct_chains_from_log

__version__ = "2.0.2"
__all__ = [
    "main",
    "parse_arguments",
    "reconstruct_at_timesteps",
    "reconstruct_chains_from_log"
]

