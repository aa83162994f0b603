# SPDX-License-Identifier: Apache-2.0
# TODO: creator function for BlendRetriever and BlendExecutor
