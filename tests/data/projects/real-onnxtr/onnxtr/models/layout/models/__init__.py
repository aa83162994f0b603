from .lw_detr import *
