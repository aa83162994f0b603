# Compatibility shim: types was renamed to type_utils
from funasr.utils.type_utils import *
