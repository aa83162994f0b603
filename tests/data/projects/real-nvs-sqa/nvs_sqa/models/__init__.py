# Import all model modules for easier access
from . import encoders
from . import qa_methods
from . import sequence_models
from . import spatio_temporal_model
