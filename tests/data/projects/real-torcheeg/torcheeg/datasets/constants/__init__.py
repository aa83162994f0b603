from .emotion_recognition import *
from .personal_identification import *
from .ssvep import *