from .aliked import ALIKED  # noqa
from .disk import DISK  # noqa
from .lightglue import LightGlue  # noqa
from .sift import SIFT  # noqa
from .superpoint import SuperPoint  # noqa
from .utils import match_pair  # noqa
