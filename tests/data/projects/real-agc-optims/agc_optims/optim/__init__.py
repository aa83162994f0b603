from .adam_agc import Adam_AGC
from .adamw_agc import AdamW_AGC
from .rmsprop_agc import RMSprop_AGC
from .sgd_agc import SGD_AGC