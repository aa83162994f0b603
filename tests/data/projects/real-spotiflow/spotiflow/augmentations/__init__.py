from .pipeline import Pipeline
from .transforms import *