from .mamba import Mamba
