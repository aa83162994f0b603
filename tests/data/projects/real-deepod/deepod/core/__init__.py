"""
The :mod:`pysad.core` module covers base classes of the `PySAD`.
"""
from .base_model import BaseDeepAD


__all__ = ["BaseDeepAD"]

# print("""
# ╭━━━╮          ╭━━━╮ ╭━━━ ╮
# ╰╮╭╮┃          ┃╭━╮┃ ╰╮╭ ╮┃
#  ┃┃┃┣━━┳━━┳━━╮ ┃┃ ┃┃  ┃┃ ┃┃
#  ┃┃┃┃┃━┫┃━┫╭╮┃ ┃┃ ┃┃  ┃┃ ┃┃
# ╭╯╰╯┃┃━┫┃━┫╰╯┃ ┃╰━╯┃ ╭╯╯ ╰┃
# ╰━━━┻━━┻━━┫╭━╯ ╰━━━╯ ╰━━━━╯
#           ┃┃
#           ╰╯
# """)