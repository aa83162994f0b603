from .analyze import analyze
from .visualize import visualize
from .sonify import sonify
from .typings import AnalysisResult
from .config import HARMONIX_LABELS
from .utils import load_result
