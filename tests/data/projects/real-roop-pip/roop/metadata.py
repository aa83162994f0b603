name = 'roop'
version = '1.3.2'
