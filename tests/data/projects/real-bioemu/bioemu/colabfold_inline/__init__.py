# Copyright (c) Microsoft Corporation.
# Licensed under the MIT License.
"""Inlined ColabFold and AlphaFold2 code paths for BioEmu embedding generation.

This package contains code derived from:
- ColabFold (MIT License) — https://github.com/sokrypton/ColabFold
- AlphaFold2 (Apache License 2.0) — https://github.com/google-deepmind/alphafold

See NOTICE.md at the repo root for complete attribution and license texts,
and src/_vendor/alphafold/LICENSE for the vendored AlphaFold2 license.
"""
