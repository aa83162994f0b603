from .module import LitModule
from .hub import MODEL_REGISTRY
