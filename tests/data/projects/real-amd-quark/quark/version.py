__version__ = '0.13'
git_version = '647cedc'
