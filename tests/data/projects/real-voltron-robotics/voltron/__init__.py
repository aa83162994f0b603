from .models.materialize import available_models, load
from .models.util import instantiate_extractor
