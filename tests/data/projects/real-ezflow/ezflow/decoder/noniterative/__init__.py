from .operators import *
from .soft_regression import Soft4DFlowRegression, SoftArg2DFlowRegression
