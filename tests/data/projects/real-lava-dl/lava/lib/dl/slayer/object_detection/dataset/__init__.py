# Copyright (C) 2023 Intel Corporation
# SPDX-License-Identifier:  BSD-3-Clause


from .bdd100k import BDD
from .prophesee_automotive import PropheseeAutomotive


__all__ = ['BDD', 'PropheseeAutomotive']
