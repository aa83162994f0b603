# Copyright © 2023-2024 Apple Inc.
