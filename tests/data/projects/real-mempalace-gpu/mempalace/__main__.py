"""Allow running as: python -m mempalace"""

from .cli import main

main()
