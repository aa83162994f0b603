"""Entry point for kan_gpt."""

from kan_gpt.cli import main  # pragma: no cover

if __name__ == "__main__":  # pragma: no cover
    main()
