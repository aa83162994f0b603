from .nudenet import NudeDetector
