from .observation import PyBulletObservationType
from .index_map import IndexMap
from .viewer import PyBulletViewer
from .joints_helper import JointsHelper
