from .config import CfgNode, configurable
from .retrieve import get_cfg, get_cfg_obj, get_cfg_path
