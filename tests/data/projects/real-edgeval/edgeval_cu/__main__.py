"""Allow `python -m edgeval_cu` to invoke the CLI."""
from .cli import cli

if __name__ == '__main__':
    cli()
