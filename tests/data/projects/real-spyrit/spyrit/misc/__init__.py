# -----------------------------------------------------------------------------
#   This software is distributed under the terms
#   of the GNU Lesser General  Public Licence (LGPL)
#   See LICENSE.md for further details
# -----------------------------------------------------------------------------

"""Contains miscellaneous Numpy / Pytorch functions useful for spyrit.core."""

# from . import color
# from . import data_visualisation
# from . import disp
# from . import examples
# from . import matrix_tools
# from . import metrics
# from . import pattern_choice
# from . import sampling
# from . import statistics
# from . import walsh_hadamard
