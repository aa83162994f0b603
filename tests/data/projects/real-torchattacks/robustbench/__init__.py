from .data import load_cifar10
from .utils import load_model
# from .eval import benchmark
