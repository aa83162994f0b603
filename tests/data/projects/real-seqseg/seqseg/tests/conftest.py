# Script-style modules in this folder are not pytest suites; skip during collection.
collect_ignore = ["test_nnunet2.py", "test_vtk.py", "test_segmentation.py"]
