""" Package containing the different decoders (ctc, beamsearch ...)
"""

from .ctc import *  # noqa
from .scorer import *  # noqa
from .seq2seq import *  # noqa
from .transducer import *  # noqa
