from .distributions import *
from .encoders import *
from .imitators import *
from .parameters import *
from .policies import *
from .q_functions import *
from .transformers import *
from .v_functions import *
