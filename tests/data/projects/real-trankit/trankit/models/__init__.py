from .classifiers import *
