from .configuration_bertabs import *
from .modeling_bertabs import *
