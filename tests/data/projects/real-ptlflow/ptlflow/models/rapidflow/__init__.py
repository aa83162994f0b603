from .rapidflow import *
