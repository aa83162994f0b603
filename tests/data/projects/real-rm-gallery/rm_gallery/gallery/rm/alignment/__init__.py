from .base import *
from .harmlessness import *
from .helpfulness import *
from .honesty import *
