import pyarrow.fs as fs

DEFAULT_FILESYSTEM = fs.LocalFileSystem()
