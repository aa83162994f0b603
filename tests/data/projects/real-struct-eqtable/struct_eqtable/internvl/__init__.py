from .internvl import InternVL
from .internvl_lmdeploy import InternVL_LMDeploy