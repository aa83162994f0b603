from .loftr import LoFTR
from .utils.cvpr_ds_config import default_cfg
