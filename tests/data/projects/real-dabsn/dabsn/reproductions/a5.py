from .common import main as _main


def main():
    _main("a5")


if __name__ == "__main__":
    main()
