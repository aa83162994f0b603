from ._util import *
from ._transformer import *
from ._template import *
from ._registry import *
from ._default_code_gen import *
from ._generator import *

import lettuce.cuda_native.ext
