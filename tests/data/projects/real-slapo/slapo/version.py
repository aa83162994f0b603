# Copyright Amazon.com, Inc. or its affiliates. All Rights Reserved.
# SPDX-License-Identifier: Apache-2.0
"""Version information for the package.
This file should not be changed manually. The steps of bumping a version are:
1. Create a new tag (e.g., v0.0.3) and a release in the Github repo.
2. Run git fetch --tags to fetch the new tag.
3. Run python update_version.py to update the version information in this file.
"""
__version__ = "0.0.3"
