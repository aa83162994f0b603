short_version = '0.3'
version = '0.3.0'

