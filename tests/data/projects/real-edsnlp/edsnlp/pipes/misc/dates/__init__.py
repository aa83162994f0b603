from .dates import DatesMatcher
