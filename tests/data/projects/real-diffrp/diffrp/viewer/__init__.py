from .mpl import Viewer
