from .transcribe import transcribe_any
from .alignment import Aligner
from .refinement import Refiner
