import os, sys

sys.path.append(os.path.dirname(os.path.realpath(__file__)))
