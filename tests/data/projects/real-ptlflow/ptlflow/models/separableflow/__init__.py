from .separableflow import *
