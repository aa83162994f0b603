from .base_utils import *
from .posdep_utils import *
from .tokenizer_utils import *
from .ner_utils import *
