from .elements import *
from .exporters import *
from .html import *
from .image import *
from .pdf import *
from .reader import *
