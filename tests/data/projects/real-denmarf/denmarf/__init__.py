import scipy.linalg # A benign hack to make things not crash
from .density import DensityEstimate
