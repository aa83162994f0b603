from .hough import *
from .tmf import *
__all__ = ['hough','tmf']
__version__ = '1.0.1'