from .yaapt import yaapt
