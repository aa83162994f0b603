from laia.data.transforms.text.transforms import *
