from gmft.base import *
