from .all_to_all import *
from .extract_local import *
