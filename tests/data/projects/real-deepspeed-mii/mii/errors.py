# Copyright (c) Microsoft Corporation.
# SPDX-License-Identifier: Apache-2.0

# DeepSpeed Team


class DeploymentNotFoundError(Exception):
    pass


class UnknownArgument(Exception):
    pass
