from .optimizer import Optimizer
from .adam import Adam, AdamW
from .sgd import SGD
from .rmsprop import RMSprop
