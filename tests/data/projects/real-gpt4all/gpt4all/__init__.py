from .gpt4all import CancellationError as CancellationError, Embed4All as Embed4All, GPT4All as GPT4All
