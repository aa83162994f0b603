from selfcheckgpt.version import __version__
