from gmft.formatters.base import *
