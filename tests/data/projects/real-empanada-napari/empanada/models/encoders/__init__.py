from empanada.models.encoders.regnet import *
from empanada.models.encoders.resnet import *
