# Copyright (c) 2021, yolort team. All rights reserved.
