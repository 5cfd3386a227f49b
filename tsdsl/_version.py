"""The package version, in a leaf module so that any layer may read it without importing
the package face (``tsdsl/__init__.py``)."""

__version__ = "0.1.0"
