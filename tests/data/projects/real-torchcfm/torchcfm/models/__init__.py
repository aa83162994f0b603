from .models import MLP
