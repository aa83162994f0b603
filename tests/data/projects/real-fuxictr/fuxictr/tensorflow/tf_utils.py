# =========================================================================
# Copyright (C) 2024. The FuxiCTR Library. All rights reserved.
# 
# Licensed under the Apache License, Version 2.0 (the "License");
# you may not use this file except in compliance with the License.
# You may obtain a copy of the License at
#
#     http://www.apache.org/licenses/LICENSE-2.0
#
# Unless required by applicable law or agreed to in writing, software
# distributed under the License is distributed on an "AS IS" BASIS,
# WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
# See the License for the specific language governing permissions and
# limitations under the License.
# =========================================================================

import random
import numpy as np
import os
import tensorflow as tf
from tensorflow.keras import optimizers
from tensorflow.keras.regularizers import l2, l1, l1_l2
from tensorflow.keras.initializers import *
import logging


def seed_everything(seed=2019):
    """Set random seeds for reproducibility.

    Args:
        seed (int): Random seed value. Negative values are ignored.
    """
    logging.info('Setting random seed={}'.format(seed))
    if seed >= 0:
        random.seed(seed)
        np.random.seed(seed)
        os.environ['PYTHONHASHSEED'] = str(seed)
        tf.random.set_seed(seed)

def get_activation(activation):
    """Return a Keras activation layer or callable from a string name.

    Args:
        activation (str or callable): Activation name or callable.

    Returns:
        tf.keras.layers.Layer or callable: Activation layer/callable.
    """
    if isinstance(activation, str):
        if activation.lower() == "relu":
            return tf.keras.layers.Activation("relu")
        elif activation.lower() == "sigmoid":
            return tf.keras.layers.Activation("sigmoid")
        elif activation.lower() == "tanh":
            return tf.keras.layers.Activation("tanh")
        elif activation.lower() == "softmax":
            return tf.keras.layers.Softmax()
        else:
            return getattr(tf.keras.layers, activation)()
    else:
        return activation

def get_optimizer(optimizer, learning_rate=1.0e-3):
    """Return a Keras optimizer instance from a string name.

    Args:
        optimizer (str or tf.keras.optimizers.Optimizer): Optimizer name or instance.
        learning_rate (float): Learning rate.

    Returns:
        tf.keras.optimizers.Optimizer: Optimizer instance.

    Raises:
        ValueError: If the optimizer name is not supported.
    """
    if isinstance(optimizer, str):
        if optimizer.lower() == 'adam':
            return optimizers.Adam(learning_rate=learning_rate)
        elif optimizer.lower() == 'ftrl':
            return optimizers.Ftrl(learning_rate=learning_rate, l1_regularization_strength=0.1)
        elif optimizer.lower() == 'adagrad':
            return optimizers.Adagrad(learning_rate=learning_rate)
        else:
            try:
                return getattr(optimizers, optimizer)(learning_rate=learning_rate)
            except:
                raise ValueError('optimizer={} is not supported.'.format(optimizer))
    return optimizer

def get_loss(loss):
    """Return a Keras loss instance from a string name.

    Args:
        loss (str or tf.keras.losses.Loss): Loss name or instance.

    Returns:
        tf.keras.losses.Loss: Loss instance.

    Raises:
        ValueError: If the loss name is not supported.
    """
    if isinstance(loss, str):
        if loss in ['bce', 'binary_crossentropy', 'binary_cross_entropy']:
            loss = tf.keras.losses.BinaryCrossentropy(from_logits=False)
        else:
            raise ValueError('loss={} is not supported.'.format(loss))
    return loss

def get_regularizer(reg):
    """Return a Keras regularizer from a numeric or string specification.

    Args:
        reg (int, float, str, or tf.keras.regularizers.Regularizer): Regularizer specification.

    Returns:
        tf.keras.regularizers.Regularizer: Regularizer instance.

    Raises:
        ValueError: If the regularizer specification is not supported.
    """
    if type(reg) in [int, float]:
        return l2(reg)
    elif isinstance(reg, str):
        if '(' in reg:
            try:
                return eval(reg)
            except:
                raise ValueError('reg={} is not supported.'.format(reg))
    return reg

def get_initializer(initializer, seed=20222023):
    """Return a Keras initializer from a string specification.

    Args:
        initializer (str or tf.keras.initializers.Initializer): Initializer name or instance.
        seed (int): Random seed for the initializer.

    Returns:
        tf.keras.initializers.Initializer: Initializer instance.

    Raises:
        ValueError: If the initializer specification is not supported.
    """
    if isinstance(initializer, str):
        try:
            if '(' in initializer:
                return eval(initializer.rstrip(')') + ', seed={})'.format(seed))
            else:
                return eval(initializer)(seed=seed)
        except:
            raise ValueError("initializer={} not supported.".format(initializer))
    return initializer

