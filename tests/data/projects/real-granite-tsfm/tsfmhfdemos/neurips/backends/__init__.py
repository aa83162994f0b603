# Copyright contributors to the TSFM project
#
