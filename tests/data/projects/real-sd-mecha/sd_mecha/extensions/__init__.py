from . import merge_spaces
from . import model_formats
from . import model_configs
from . import merge_methods
from . import model_dirs
