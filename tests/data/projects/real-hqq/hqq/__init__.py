__version__ = "0.2.8.post1"
__author__  = 'Dr. Hicham Badri'
__credits__ = 'Mobius Labs GmbH'
