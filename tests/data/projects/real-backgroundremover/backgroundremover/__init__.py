"""
backgroundremover

A library to remove background from videos and images
"""

__version__ = "0.4.4"
__author__ = 'Johnathan Nader'
__credits__ = 'BackgroundRemoverAI.com'
