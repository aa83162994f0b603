from .group_norm import apex_available
from .unets import SongUNetv2
