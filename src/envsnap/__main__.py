"""``python -m envsnap``."""

from envsnap.launch import main

if __name__ == "__main__":
    main()
