from .splatflow import *
