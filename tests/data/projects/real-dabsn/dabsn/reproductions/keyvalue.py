from .common import main as _main


def main():
    _main("keyvalue")


if __name__ == "__main__":
    main()
