"""
Includes various kind of utilities.
"""

from .colors import *
from .composite import *
from .coordinates import *
from .exchange import *
from .geometry import *
from .light_transport import *
from .shader_ops import *
from .tone_mapping import *
