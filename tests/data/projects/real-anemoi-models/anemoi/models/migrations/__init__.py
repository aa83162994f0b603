# (C) Copyright 2025-2026 Anemoi contributors.
#
# This software is licensed under the terms of the Apache Licence Version 2.0
# which can be obtained at http://www.apache.org/licenses/LICENSE-2.0.
#
# In applying this licence, ECMWF does not waive the privileges and immunities
# granted to it by virtue of its status as an intergovernmental organisation
# nor does it submit to any jurisdiction.

from .migrator import MIGRATION_PATH
from .migrator import CkptType
from .migrator import IncompatibleCheckpointException
from .migrator import Migration
from .migrator import MigrationMetadata
from .migrator import MigrationOp
from .migrator import MigrationVersions
from .migrator import Migrator
from .migrator import MissingAttribute
from .migrator import SaveCkpt
from .migrator import SerializedMigration
from .setup_context import MigrationContext

__all__ = [
    "MIGRATION_PATH",
    "CkptType",
    "IncompatibleCheckpointException",
    "Migration",
    "MigrationMetadata",
    "MigrationOp",
    "MigrationVersions",
    "Migrator",
    "MissingAttribute",
    "SaveCkpt",
    "SerializedMigration",
    "MigrationContext",
]
