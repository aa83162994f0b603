from .pwcnet import *
