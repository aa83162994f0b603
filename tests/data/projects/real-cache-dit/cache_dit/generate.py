from ._utils import entrypoint


def main():
  entrypoint()


if __name__ == "__main__":
  main()
