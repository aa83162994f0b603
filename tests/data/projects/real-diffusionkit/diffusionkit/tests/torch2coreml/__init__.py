from .test_mmdit import convert_mmdit_to_mlpackage
from .test_vae import convert_vae_to_mlpackage
