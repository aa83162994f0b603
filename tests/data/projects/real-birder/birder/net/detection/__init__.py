from birder.net.detection.d_fine import D_FINE
from birder.net.detection.deformable_detr import Deformable_DETR
from birder.net.detection.detr import DETR
from birder.net.detection.efficientdet import EfficientDet
from birder.net.detection.faster_rcnn import Faster_RCNN
from birder.net.detection.fcos import FCOS
from birder.net.detection.lw_detr import LW_DETR
from birder.net.detection.plain_detr import Plain_DETR
from birder.net.detection.retinanet import RetinaNet
from birder.net.detection.rf_detr import RF_DETR
from birder.net.detection.rt_detr_v1 import RT_DETR_v1
from birder.net.detection.rt_detr_v2 import RT_DETR_v2
from birder.net.detection.rtmdet import RTMDet
from birder.net.detection.ssd import SSD
from birder.net.detection.ssdlite import SSDLite
from birder.net.detection.vitdet import ViTDet
from birder.net.detection.yolo_v2 import YOLO_v2
from birder.net.detection.yolo_v3 import YOLO_v3
from birder.net.detection.yolo_v4 import YOLO_v4
from birder.net.detection.yolo_v4_tiny import YOLO_v4_Tiny

__all__ = [
    "D_FINE",
    "Deformable_DETR",
    "DETR",
    "EfficientDet",
    "Faster_RCNN",
    "FCOS",
    "LW_DETR",
    "Plain_DETR",
    "RetinaNet",
    "RF_DETR",
    "RT_DETR_v1",
    "RT_DETR_v2",
    "RTMDet",
    "SSD",
    "SSDLite",
    "ViTDet",
    "YOLO_v2",
    "YOLO_v3",
    "YOLO_v4",
    "YOLO_v4_Tiny",
]
