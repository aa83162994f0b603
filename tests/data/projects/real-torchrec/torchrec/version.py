__version__ = '1.9.2'
git_version = '4eed9d331d92ff8540e6cd99da2a6519bdef30e4'
