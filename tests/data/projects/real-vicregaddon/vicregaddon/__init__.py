from .vicregaddon import * 
