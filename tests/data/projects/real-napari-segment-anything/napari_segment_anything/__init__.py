__version__ = "0.1.4"
from napari_segment_anything._widget import SAMWidget

__all__ = ("SAMWidget",)
