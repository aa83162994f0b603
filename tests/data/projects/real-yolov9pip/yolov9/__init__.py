from yolov9.helpers import load_model as load

__version__ = "0.0.4"
__author__ = 'kadirnar'
__license__ = 'Apache License 2.0'
