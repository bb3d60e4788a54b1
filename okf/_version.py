"""The version of okf: a leaf module, so nothing imports the package's face to learn it."""

__version__ = "0.1.0"
