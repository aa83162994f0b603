"""

"""

# Created by Wenjie Du <wenjay.du@gmail.com>
# License: BSD-3-Clause

from .backbone import BackboneTRMF

__all__ = [
    "BackboneTRMF",
]
