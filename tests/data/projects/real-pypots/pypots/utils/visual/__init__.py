"""
Visualization utilities.
"""

# Created by Wenjie Du <wenjay.du@gmail.com>
# License: BSD-3-Clause

__all__ = [
    "clustering",
    "data",
]
