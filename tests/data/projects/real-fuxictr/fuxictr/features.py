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


from collections import OrderedDict
import io
import os
import logging
import json


class FeatureMap(object):
    """Registry that stores feature schemas, metadata, and column indexing for a dataset.

    ``FeatureMap`` maps each feature name to its specification (type, source, vocab size,
    embedding dimension, etc.) and manages the flat column index used by data loaders.

    Args:
        dataset_id (str): Unique identifier for the dataset.
        data_dir (str): Directory path where feature map and vocab files are stored.

    Example::

        feature_map = FeatureMap(dataset_id="criteo", data_dir="./data/criteo")
        feature_map.load("feature_map.json", params={"embedding_dim": 16})
    """

    def __init__(self, dataset_id, data_dir):
        self.data_dir = data_dir # must keep to be used in embedding layer for pretrained emb
        self.dataset_id = dataset_id
        self.num_fields = 0
        self.total_features = 0
        self.input_length = 0
        self.features = OrderedDict()
        self.labels = []
        self.column_index = dict()
        self.group_id = None
        self.default_emb_dim = None

    def load(self, json_file, params):
        """Load feature map from a JSON file.

        Args:
            json_file (str): Path to the JSON file.
            params (dict): Runtime parameters such as ``group_id``, ``embedding_dim``,
                ``use_features``, and ``feature_specs``.
        """
        logging.info("Load feature_map from json: " + json_file)
        with io.open(json_file, "r", encoding="utf-8") as fd:
            feature_map = json.load(fd) #, object_pairs_hook=OrderedDict
        if feature_map["dataset_id"] != self.dataset_id:
            raise RuntimeError("dataset_id={} does not match feature_map!".format(self.dataset_id))
        self.labels = feature_map.get("labels", [])
        self.total_features = feature_map.get("total_features", 0)
        self.input_length = feature_map.get("input_length", 0)
        self.group_id = params.get("group_id", None)
        self.default_emb_dim = params.get("embedding_dim", None)
        self.features = OrderedDict((k, v) for x in feature_map["features"] for k, v in x.items())
        self.num_fields = self.get_num_fields()
        if params.get("use_features", None):
            self.features = OrderedDict((x, self.features[x]) for x in params["use_features"])
        if params.get("feature_specs", None):
            self.update_feature_specs(params["feature_specs"])
        self.set_column_index()

    def update_feature_specs(self, feature_specs):
        """Update feature specifications with user-provided overrides.

        Args:
            feature_specs (list): List of dicts each containing a ``name`` key and
                additional spec keys to merge into the existing feature map.
        """
        for col in feature_specs:
            namelist = col["name"]
            if type(namelist) != list:
                namelist = [namelist]
            for name in namelist:
                for k, v in col.items():
                    if k != "name":
                        self.features[name][k] = v

    def save(self, json_file):
        """Persist the feature map to a JSON file.

        Args:
            json_file (str): Destination path for the JSON file.
        """
        logging.info("Save feature_map to json: " + json_file)
        os.makedirs(os.path.dirname(json_file), exist_ok=True)
        feature_map = OrderedDict()
        feature_map["dataset_id"] = self.dataset_id
        feature_map["num_fields"] = self.num_fields
        feature_map["total_features"] = self.total_features
        feature_map["input_length"] = self.input_length
        feature_map["labels"] = self.labels
        feature_map["features"] = [{k: v} for k, v in self.features.items()]
        with open(json_file, "w") as fd:
            json.dump(feature_map, fd, indent=4)

    def get_num_fields(self, feature_source=[]):
        """Count the number of feature fields, optionally filtered by source.

        Args:
            feature_source (list or str): Feature source(s) to include. Empty list
                includes all sources.

        Returns:
            int: Number of matching feature fields.
        """
        if type(feature_source) != list:
            feature_source = [feature_source]
        num_fields = 0
        for feature, feature_spec in self.features.items():
            if feature_spec["type"] == "meta":
                continue
            if len(feature_source) == 0 or feature_spec.get("source") in feature_source:
                num_fields += 1
        return num_fields

    def sum_emb_out_dim(self, feature_source=[]):
        """Sum the total embedding output dimension for the given feature sources.

        Args:
            feature_source (list or str): Feature source(s) to include. Empty list
                includes all sources.

        Returns:
            int: Total embedding output dimension.
        """
        if type(feature_source) != list:
            feature_source = [feature_source]
        total_dim = 0
        for feature, feature_spec in self.features.items():
            if feature_spec["type"] == "meta":
                continue
            if len(feature_source) == 0 or feature_spec.get("source") in feature_source:
                total_dim += feature_spec.get("emb_output_dim",
                                              feature_spec.get("embedding_dim", 
                                                               self.default_emb_dim))
        return total_dim

    def set_column_index(self):
        """Assign a flat column index to each feature and label for tensor construction.

        Sequence and embedding features receive multi-index ranges, while scalar
        features receive a single index.
        """
        logging.info("Set column index...")
        idx = 0
        for feature, feature_spec in self.features.items():
            if feature_spec["type"] == "sequence":
                col_indexes = [i + idx for i in range(feature_spec["max_len"])]
                self.column_index[feature] = col_indexes
                idx += feature_spec["max_len"]
            elif feature_spec["type"] == "embedding":
                emb_dim = feature_spec["pretrain_dim"]
                col_indexes = [i + idx for i in range(emb_dim)]
                self.column_index[feature] = col_indexes
                idx += emb_dim
            else:
                self.column_index[feature] = idx
                idx += 1
        self.input_length = idx
        for label in self.labels:
            self.column_index[label] = idx
            idx += 1

    def get_column_index(self, feature):
        """Retrieve the column index (or indices) assigned to a feature.

        Args:
            feature (str): Name of the feature.

        Returns:
            int or list: Column index for scalar features, or list of indices
                for sequence/embedding features.
        """
        if feature not in self.column_index:
            self.set_column_index()
        return self.column_index[feature]

        
