from ice.llutil.dictprocess import Compose, Collect
from . import image, semseg, random