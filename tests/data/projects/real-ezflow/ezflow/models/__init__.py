from .build import MODEL_REGISTRY, build_model, get_default_model_cfg, get_model_list
from .dcvnet import DCVNet
from .dicl import DICL
from .flownet_c import FlowNetC
from .flownet_s import FlowNetS
from .predictor import Predictor
from .pwcnet import PWCNet
from .raft import RAFT
from .vcn import VCN
