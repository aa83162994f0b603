from .globalr import GlobalR, GlobalRX, GlobalRY, GlobalRZ
