# Copyright (c) 2024 Graphcore Ltd. All rights reserved.
