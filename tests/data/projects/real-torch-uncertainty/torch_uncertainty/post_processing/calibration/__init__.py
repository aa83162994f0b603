# ruff: noqa: F401
from .bbq import BBQScaler
from .dirichlet_scaler import DirichletScaler
from .histogram_binning import HistogramBinningScaler
from .isotonic_regression import IsotonicRegressionScaler
from .matrix_scaler import MatrixScaler
from .temperature_scaler import TemperatureScaler
from .vector_scaler import VectorScaler
