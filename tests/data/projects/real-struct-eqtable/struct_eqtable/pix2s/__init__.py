from .pix2s import Pix2Struct
from .pix2s_trt import Pix2StructTensorRT
    