from .plm_trainer import *
from .binding_trainer import *
from .interact_trainer import *
