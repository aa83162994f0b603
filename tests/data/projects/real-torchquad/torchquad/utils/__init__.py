# Utilities package
