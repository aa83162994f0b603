#!/usr/bin/env python
# -*- coding: utf-8 -*-


"""``skerch``: Sketched linear operations for PyTorch."""


# ##############################################################################
# # GLOBALS
# ##############################################################################

# format strings to store measurements in HDF5 files.
LO_FMT = "leftouter_{}.h5"
RO_FMT = "rightouter_{}.h5"
INNER_FMT = "inner_{}.h5"
