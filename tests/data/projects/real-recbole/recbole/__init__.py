from __future__ import absolute_import
from __future__ import print_function
from __future__ import division

__version__ = "1.2.1"
