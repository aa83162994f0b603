from .maskflownet import *
