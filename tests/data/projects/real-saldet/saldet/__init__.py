from .models import create_model, list_models

__version__ = "0.6.1"
