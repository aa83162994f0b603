r"""
Reusable network components.
"""

from .mlp import MLP, TimeMLP
from .unet import UNet, ResidualUViT, UViT

from bayesflow.utils._docs import _add_imports_to_all

_add_imports_to_all()
