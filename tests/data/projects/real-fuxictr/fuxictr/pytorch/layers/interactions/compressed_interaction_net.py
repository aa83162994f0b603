# =========================================================================
# Copyright (C) 2024. The FuxiCTR Library. All rights reserved.
# Copyright (C) 2022. Huawei Technologies Co., Ltd. All rights reserved.
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


import torch
from torch import nn


class CompressedInteractionNet(nn.Module):
    """Compressed Interaction Network (CIN) layer for explicit high-order feature interactions.

    ``CompressedInteractionNet`` builds a network of compressed interaction layers where each layer
    computes outer products between the base feature embeddings and the previous layer's output,
    followed by 1D convolution to compress the interactions. The outputs are pooled and fed into
    a final linear layer.

    Args:
        num_fields (int): Number of feature fields.
        cin_hidden_units (list): List of hidden unit sizes for each CIN layer.
        output_dim (int, optional): Dimension of the final output. Default: ``1``.

    Example::

        cin = CompressedInteractionNet(num_fields=10, cin_hidden_units=[64, 32], output_dim=1)
        output = cin(feature_emb)
    """

    def __init__(self, num_fields, cin_hidden_units, output_dim=1):
        super(CompressedInteractionNet, self).__init__()
        self.cin_hidden_units = cin_hidden_units
        self.fc = nn.Linear(sum(cin_hidden_units), output_dim)
        self.cin_layer = nn.ModuleDict()
        for i, unit in enumerate(self.cin_hidden_units):
            in_channels = num_fields * self.cin_hidden_units[i - 1] if i > 0 else num_fields ** 2
            out_channels = unit
            self.cin_layer["layer_" + str(i + 1)] = nn.Conv1d(in_channels,
                                                              out_channels,  # how many filters
                                                              kernel_size=1) # kernel output shape

    def forward(self, feature_emb):
        """Compute the CIN output.

        Args:
            feature_emb (torch.Tensor): Feature embeddings of shape
                (batch_size, num_fields, embedding_dim).

        Returns:
            torch.Tensor: Output tensor of shape (batch_size, output_dim).
        """
        pooling_outputs = []
        X_0 = feature_emb
        batch_size = X_0.shape[0]
        embedding_dim = X_0.shape[-1]
        X_i = X_0
        for i in range(len(self.cin_hidden_units)):
            hadamard_tensor = torch.einsum("bhd,bmd->bhmd", X_0, X_i)
            hadamard_tensor = hadamard_tensor.view(batch_size, -1, embedding_dim)
            X_i = self.cin_layer["layer_" + str(i + 1)](hadamard_tensor) \
                      .view(batch_size, -1, embedding_dim)
            pooling_outputs.append(X_i.sum(dim=-1))
        output = self.fc(torch.cat(pooling_outputs, dim=-1))
        return output
        

