from pl_bolts.models.detection.faster_rcnn.backbones import create_fasterrcnn_backbone
from pl_bolts.models.detection.faster_rcnn.faster_rcnn_module import FasterRCNN

__all__ = ["create_fasterrcnn_backbone", "FasterRCNN"]
