from .whisper_word_level.cli import cli

cli()
