__version__ = "1.2.8"
git_version = "79e51871e972c517bc528b689ccf15137fcc7785"
