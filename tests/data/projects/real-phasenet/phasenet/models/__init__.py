# from .autoencoder import *
from .phasenet import *
from .phasenet_das import *
from .phasenet_das_plus import *
from .phasenet_plus import *
from .phasenet_tf import *
from .phasenet_tf_plus import *
# from .phasenet_prompt import *  # not yet implemented
