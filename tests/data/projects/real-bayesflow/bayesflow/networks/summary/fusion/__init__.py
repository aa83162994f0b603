from .fusion_network import FusionNetwork
