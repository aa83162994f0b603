from codeformer.facelib.utils import *
