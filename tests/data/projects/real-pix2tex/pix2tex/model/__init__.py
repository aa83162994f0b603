from pix2tex.utils.utils import *
