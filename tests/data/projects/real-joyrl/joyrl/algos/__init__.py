#!/usr/bin/env python
# coding=utf-8
'''
Author: JiangJi
Email: johnjim0816@gmail.com
Date: 2023-01-01 16:20:49
LastEditor: JiangJi
LastEditTime: 2023-12-25 12:52:47
Discription: 
'''
from joyrl.algos import base,DQN,DoubleDQN,DuelingDQN,NoisyDQN,PPO
__all__ = [
    "base",
    "QLearning",
    "DQN",
    "DoubleDQN",
    "DuelingDQN",
    "NoisyDQN",
    "PPO"
]
