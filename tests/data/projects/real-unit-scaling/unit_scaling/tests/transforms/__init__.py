# Copyright (c) 2023 Graphcore Ltd. All rights reserved.
