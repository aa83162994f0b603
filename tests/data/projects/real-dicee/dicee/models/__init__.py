from .base_model import * # noqa
from .real import * # noqa
from .complex import * # noqa
from .quaternion import * # noqa
from .octonion import * # noqa
from .clifford import Keci, CKeci, DeCaL, KeciTransformer # noqa
from .pykeen_models import * # noqa
from .function_space import * # noqa
from .dualE import DualE # noqa
