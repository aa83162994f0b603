"""Scripts module for Genie reconstruction tools"""

from .reconstruct_at_timesteps import (
    reconstruct_at_timesteps,
    save_reconstructed_timesteps_fasta,
    main as reconstruct_at_timesteps_main,
)
from .reconstruct_chains import reconstruct_chains_from_log, compare_chains, main as reconstruct_chains_main

__version__ = "2.0.2"
__all__ = [
    "reconstruct_at_timesteps",
    "save_reconstructed_timesteps_fasta",
    "reconstruct_chains_from_log",
    "compare_chains",
    "reconstruct_at_timesteps_main",
    "reconstruct_chains_main",
]
