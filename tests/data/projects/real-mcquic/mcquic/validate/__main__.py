from .cli import entryPoint


if __name__ == "__main__":
    entryPoint()
