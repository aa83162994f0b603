from .operators import *
