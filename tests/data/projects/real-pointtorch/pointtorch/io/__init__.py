"""Tools for reading and writing point cloud files."""

from ._csv_reader import *
from ._csv_writer import *
from ._download_file import *
from ._hdf_reader import *
from ._hdf_writer import *
from ._las_reader import *
from ._las_writer import *
from ._pcd_reader import *
from ._pcd_writer import *
from ._ply_reader import *
from ._ply_writer import *
from ._point_cloud_io_data import *
from ._point_cloud_reader import *
from ._point_cloud_writer import *
from ._unzip import *

__all__ = [name for name in globals().keys() if not name.startswith("_")]
