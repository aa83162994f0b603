"""The main screen's tabs: one pane each (overview, devices, checks, packages, snapshots).

Screens (tui/screens/) take the whole terminal and are pushed and popped; panes live inside the main
screen's tabs and are built when first shown (deferred.py).
"""
