"""
1-norm condition number estimation methods.
"""

from .hager import hager_norm1_cond
from .power_iteration import power_iteration_norm1
from .oettli_prager import oettli_prager_norm1
from .monte_carlo import monte_carlo_norm1
from .hager_higham import hager_higham_norm1, block_higham_tisseur_norm1

__all__ = [
    'hager_norm1_cond',
    'power_iteration_norm1',
    'oettli_prager_norm1',
    'monte_carlo_norm1',
    'hager_higham_norm1', 
    'block_higham_tisseur_norm1',
]