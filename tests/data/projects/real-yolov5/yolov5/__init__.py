from yolov5.helpers import YOLOv5
from yolov5.helpers import load_model as load

__version__ = "7.0.14"
