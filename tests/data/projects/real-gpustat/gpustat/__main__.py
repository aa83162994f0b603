"""
gpustat.__main__ module (to support python -m gpustat)
"""

from .cli import main


if __name__ == '__main__':
    main()
