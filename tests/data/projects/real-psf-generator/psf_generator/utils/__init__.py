# Copyright Biomedical Imaging Group, EPFL 2025
