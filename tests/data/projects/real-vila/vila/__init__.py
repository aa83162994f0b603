from .models import *
from .dataset import *
from .automodel import AutoModelForTokenClassification, AutoTokenizer
from .predictors import (
    SimplePDFPredictor,
    LayoutIndicatorPDFPredictor,
    HierarchicalPDFPredictor,
)

__version__ = "0.5.0"
