# Import all submodules in the helpfulness directory
# Import base classes
from .brainstorming import *
from .chat import *
from .classification import *
from .closed_qa import *
from .code import *
from .focus import *
from .generation import *
from .math import *
from .open_qa import *
from .precise_if import *
from .reasoning import *
from .rewrite import *
from .role_playing import *
from .summarization import *
from .translation import *
