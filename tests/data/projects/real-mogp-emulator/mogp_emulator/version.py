'''
Version file automatically created by setup.py file
'''
version = '0.7.2'
    