from .elements import *
from .html import *
from .image import *
from .pdf import *
from .reader import *
from .exporters import *
