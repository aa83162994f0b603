from .database import (
    COLMAPDatabase,
    array_to_blob,
    blob_to_array,
    image_ids_to_pair_id,
    pair_id_to_image_ids,
)
from .image import Image, ImageList
from .logger import change_logger_level, setup_logger
from .tiling import Tiler
from .timer import Timer, timeit
from .utils import OutputCapture, get_pairs_from_file, to_homogeneous

try:
    import pycolmap

    NO_PYCOLMAP = False
except ImportError:
    NO_PYCOLMAP = True

if not NO_PYCOLMAP:
    from .utils import compute_epipolar_errors
