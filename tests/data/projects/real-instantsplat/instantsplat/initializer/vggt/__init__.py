from .vggt import VGGTInitializer
from .align import VGGTAlign2Initializer
