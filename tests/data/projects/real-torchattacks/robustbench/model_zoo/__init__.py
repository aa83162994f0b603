from .models import model_dicts

