from .rfdetr import RFDETR
from .rtmdet import RTMDet
from .yolox import YOLOX

__all__ = ['RFDETR', 'RTMDet', 'YOLOX']
