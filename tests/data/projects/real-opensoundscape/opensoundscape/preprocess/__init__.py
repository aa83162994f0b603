from . import actions
from . import img_augment
from . import preprocessors
from . import tensor_augment
from . import utils
from . import io
