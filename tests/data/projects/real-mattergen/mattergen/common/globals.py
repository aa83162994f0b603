# Copyright (c) Microsoft Corporation.
# Licensed under the MIT License.

from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parent.parent
GENERATED_CRYSTALS_ZIP_FILE_NAME = "generated_crystals_cif.zip"
GENERATED_CRYSTALS_EXTXYZ_FILE_NAME = "generated_crystals.extxyz"
