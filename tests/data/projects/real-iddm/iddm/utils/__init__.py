#!/usr/bin/env python
# -*- coding:utf-8 -*-

# Copyright 2025 IDDM Authors

# Licensed under the Apache License, Version 2.0 (the "License");
# you may not use this file except in compliance with the License.
# You may obtain a copy of the License at

#     http://www.apache.org/licenses/LICENSE-2.0

# Unless required by applicable law or agreed to in writing, software
# distributed under the License is distributed on an "AS IS" BASIS,
# WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
# See the License for the specific language governing permissions and
# limitations under the License.

"""
    @Date   : 2023/6/20 17:44
    @Author : chairc
    @Site   : https://github.com/chairc
"""
from .checkpoint import load_ckpt, load_model_ckpt, save_ckpt, separate_ckpt_weights
from .check import check_path_is_exist, check_and_create_dir, check_url, check_pretrain_path, check_is_nan, \
    check_is_distributed, check_gpu_num_is_valid, check_image_size
from .dataset import get_dataset, set_resize_images_size
from .initializer import device_initializer, seed_initializer, network_initializer, loss_initializer, \
    optimizer_initializer, sample_initializer, lr_initializer, amp_initializer, generate_initializer, \
    sr_network_initializer, classes_initializer
from .logger import BaseLogger, WebUILogger, AppLogger
from .lr_scheduler import set_cosine_lr
from .utils import plot_images, plot_one_image_in_images, save_images, save_one_image_in_images, \
    setup_logging, delete_files, save_train_logging, check_and_create_dir, download_files, download_model_pretrain_model
