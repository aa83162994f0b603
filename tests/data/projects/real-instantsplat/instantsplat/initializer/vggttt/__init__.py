from .vggttt import VGGTTTInitializer
from .align import VGGTTTAlign2Initializer
