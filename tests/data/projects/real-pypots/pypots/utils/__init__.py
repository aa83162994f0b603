"""
Utility functions and classes are stored in this package.
"""

# Created by Wenjie Du <wenjay.du@gmail.com>
# License: BSD-3-Clause


__all__ = [
    # content files in this package
    "file",
    "logging",
    # "metrics", # deprecated and everything is moved to nn.functional, hence do not import it by default
    "random",
    "visual",
]
