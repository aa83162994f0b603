"""Kindle version description.

- Author: Jongkuk Lim
- Contact: lim.jeikei@gmail.com
"""

__version__ = "0.4.16"
