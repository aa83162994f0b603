from .xttsv2 import XTTSv2Engine

