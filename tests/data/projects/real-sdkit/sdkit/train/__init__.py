from .merge_models import merge_models, merge_multiple_models
