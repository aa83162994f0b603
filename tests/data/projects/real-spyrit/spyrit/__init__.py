# -----------------------------------------------------------------------------
#   This software is distributed under the terms
#   of the GNU Lesser General  Public Licence (LGPL)
#   See LICENSE.md for further details
# -----------------------------------------------------------------------------

# from __future__ import division, print_function, absolute_import
# from distutils.version import LooseVersion
#
#
# from . import spyritest
#
#
# __all__ = [s for s in dir() if not s.startswith('_')]

# from . import core
# from . import misc
# from . import external
