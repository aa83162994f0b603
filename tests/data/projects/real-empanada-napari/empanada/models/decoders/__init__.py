from empanada.models.decoders.bifpn import BiFPN, BiFPNDecoder
from empanada.models.decoders.panoptic_deeplab import PanopticDeepLabDecoder
