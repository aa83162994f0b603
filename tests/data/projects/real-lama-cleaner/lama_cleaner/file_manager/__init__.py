from .file_manager import FileManager
