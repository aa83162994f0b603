"""Code for defining package root path"""

import os

PKG_ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
