from __future__ import absolute_import

__version__ = "0.8.0"
