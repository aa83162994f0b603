from .model import Weights, Model
from .utils import Head, Backbone
