from .Base import Base
from .GATStack import GATStack
from .GINStack import GINStack
from .PNAStack import PNAStack
from .GINStack import GINStack
from .create import create_model, create_model_config
