from ..base import SplatDataItem

class ColmapDataItem(SplatDataItem):
    """
    Data set item for COLMAP datasets.
    """