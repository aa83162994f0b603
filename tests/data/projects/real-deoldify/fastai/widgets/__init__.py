from .class_confusion import *
from .image_cleaner import *
from .image_downloader import *
