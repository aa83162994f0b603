# Copyright (c) 2021 Qualcomm Technologies, Inc.
# All Rights Reserved.
