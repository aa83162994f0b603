""" """

# Created by Fengming Zhang <milaogou@gmail.com>
# License: BSD-3-Clause

from .backbone import BackboneHELIX

__all__ = [
    "BackboneHELIX",
]
