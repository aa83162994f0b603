from .mlp import MLP
from .time_mlp import TimeMLP
