from .src import fvcb
from .src import util
from .src import stomatal
from .src import prospect