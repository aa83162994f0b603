# Ultralytics YOLO 🚀, AGPL-3.0 license

__version__ = "0.0.4"

from doclayout_yolo.data.explorer.explorer import Explorer
from doclayout_yolo.models import RTDETR, SAM, YOLO, YOLOWorld, YOLOv10
from doclayout_yolo.models.fastsam import FastSAM
from doclayout_yolo.models.nas import NAS
from doclayout_yolo.utils import ASSETS, SETTINGS as settings
from doclayout_yolo.utils.checks import check_yolo as checks
from doclayout_yolo.utils.downloads import download

__all__ = (
    "__version__",
    "ASSETS",
    "YOLO",
    "YOLOWorld",
    "NAS",
    "SAM",
    "FastSAM",
    "RTDETR",
    "checks",
    "download",
    "settings",
    "Explorer",
    "YOLOv10"
)
