import torch
import numpy as np
import xarray as xr
from typing import Dict, List, Optional, Union, Tuple
from scipy import stats
import matplotlib.pyplot as plt

class WeatherMetrics:
    """Weather-specific evaluation metrics."""
    pass

class WeatherEvaluator:
    """Evaluator for weather predictions."""
    pass
