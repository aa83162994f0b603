from gmft.detectors.base import *
