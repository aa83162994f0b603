"""
DeepLabCut Live Toolbox (deeplabcut.org)
© A. & M. Mathis Labs
admin@deeplabcut.org

Licensed under GNU Lesser General Public License v3.0
"""


__version__ = "1.1.0"
VERSION = __version__
