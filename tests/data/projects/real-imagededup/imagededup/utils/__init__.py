from .plotter import plot_duplicates
from .models import CustomModel
