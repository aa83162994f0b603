# Integration methods package
