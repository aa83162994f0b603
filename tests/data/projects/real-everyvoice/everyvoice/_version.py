# [Valid version numbers](https://packaging.python.org/en/latest/discussions/versioning/#versioning)  # noqa: E501
# [PEP 440 – Version Identification and Dependency Specification](https://peps.python.org/pep-0440/)  # noqa: E501
# [Specifying Your Project’s Version](https://setuptools.pypa.io/en/latest/userguide/distribution.html)  # noqa: E501
# [N!]N(.N)*[{a|b|rc}N][.postN][.devN]
VERSION = "0.5.0"
