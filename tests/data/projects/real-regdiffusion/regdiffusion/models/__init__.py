from .regdiffusion import RegDiffusion
from .regdiffusion_me import RegDiffusionME
