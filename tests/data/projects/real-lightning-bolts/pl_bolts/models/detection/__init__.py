from pl_bolts.models.detection import components
from pl_bolts.models.detection.faster_rcnn import FasterRCNN
from pl_bolts.models.detection.retinanet import RetinaNet
from pl_bolts.models.detection.yolo.darknet_network import DarknetNetwork
from pl_bolts.models.detection.yolo.torch_networks import (
    YOLOV4Backbone,
    YOLOV4Network,
    YOLOV4P6Network,
    YOLOV4TinyBackbone,
    YOLOV4TinyNetwork,
    YOLOV5Backbone,
    YOLOV5Network,
    YOLOV7Backbone,
    YOLOV7Network,
    YOLOXNetwork,
)
from pl_bolts.models.detection.yolo.yolo_module import YOLO

__all__ = [
    "components",
    "FasterRCNN",
    "RetinaNet",
    "DarknetNetwork",
    "YOLOV4Backbone",
    "YOLOV4Network",
    "YOLOV4P6Network",
    "YOLOV4TinyBackbone",
    "YOLOV4TinyNetwork",
    "YOLOV5Backbone",
    "YOLOV5Network",
    "YOLOV7Backbone",
    "YOLOV7Network",
    "YOLOXNetwork",
    "YOLO",
]
