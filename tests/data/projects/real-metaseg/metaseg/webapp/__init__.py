from .app import metaseg_app as metaseg_app
