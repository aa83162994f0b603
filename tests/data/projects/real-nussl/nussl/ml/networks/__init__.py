from .separation_model import SeparationModel
from . import builders
