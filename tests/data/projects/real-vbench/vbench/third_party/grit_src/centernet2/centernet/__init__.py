from .modeling.meta_arch.centernet_detector import CenterNetDetector
from .modeling.dense_heads.centernet import CenterNet
from .modeling.roi_heads.custom_roi_heads import CustomROIHeads, CustomCascadeROIHeads

from .modeling.backbone.fpn_p5 import build_p67_resnet_fpn_backbone
from .modeling.backbone.dla import build_dla_backbone
from .modeling.backbone.dlafpn import build_dla_fpn3_backbone
from .modeling.backbone.bifpn import build_resnet_bifpn_backbone
from .modeling.backbone.bifpn_fcos import build_fcos_resnet_bifpn_backbone
from .modeling.backbone.res2net import build_p67_res2net_fpn_backbone
