__version__ = "0.1.1"

from .quality_assessor import QualityAssessor
