from pinnstorch.train import train
from . import models

