from .classification import *
from .detection import *
from .recognition import *
from .layout import *
from .table_structure import *
from .zoo import *
from .factory import *
