# ref: https://mypy.readthedocs.io/en/stable/cheat_sheet_py3.html
