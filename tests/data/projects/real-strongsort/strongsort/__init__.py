from strongsort.deep.models import *
from strongsort.strong_sort import StrongSORT
from strongsort.utils import *

__version__ = "0.2.1"
