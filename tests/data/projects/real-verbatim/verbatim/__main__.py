"""Entry point for python -m verbatim."""

from .main import main

if __name__ == "__main__":
    main()
