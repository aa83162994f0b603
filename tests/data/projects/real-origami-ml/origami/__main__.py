"""Entry point for running origami as a module: python -m origami"""

from origami.cli import main

if __name__ == "__main__":
    main()
