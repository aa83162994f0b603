from .distorter import Distorter
