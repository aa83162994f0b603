from .analyze import analyze as analyze
from .config import HARMONIX_LABELS as HARMONIX_LABELS
from .sonify import sonify as sonify
from .typings import AnalysisResult as AnalysisResult
from .utils import load_result as load_result
from .visualize import visualize as visualize
