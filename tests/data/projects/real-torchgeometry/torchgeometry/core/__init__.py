from .homography_warper import HomographyWarper, homography_warp
from .depth_warper import DepthWarper, depth_warp
from .pinhole import *
from .conversions import *
from .imgwarp import *
from .transformations import *
