"""Errors raised by okf. The library raises; it never prints or exits.

The tree::

    OKFError                      base: every error okf raises on purpose
     ├── BundleError              bad bundle input; carries path and line
     │    ├── BundleNotFoundError the path does not exist
     │    ├── NotABundleError     the path is not a bundle (a file, no markdown, ...)
     │    ├── PathEscapeError     a path from an index, link, caller or model leaves the bundle root
     │    ├── ConceptNotFoundError  an id or path names no concept in the bundle
     │    └── CompileError        a compile cannot run; carries path and line
     ├── ConfigError              bad configuration or arguments; says how to fix it
     │    └── ContractError       a contract file is malformed; lists every problem, each naming its fact
     ├── ProviderError            a model endpoint failed; keeps the HTTP status (None for network errors)
     │    └── DeadlineExceeded    the overall deadline passed before the call finished
     └── ModelOutputError         a model reply failed validation after its repair retry; keeps the raw text

The CLI turns any ``OKFError`` into ``Error: ...`` on stderr and exit status 1 (``ConfigError`` raised for bad
command-line arguments exits 2). tests/test_architecture.py holds this tree against the classes.
"""

from __future__ import annotations


class OKFError(Exception):
    """Base of every error okf raises on purpose."""

    def __init__(self, message: str, *, fix: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.fix = fix

    def __str__(self) -> str:
        return f"{self.message} ({self.fix})" if self.fix else self.message


class BundleError(OKFError):
    """Bad bundle input; names the file and, when known, the line."""

    def __init__(
        self, message: str, *, path: str | None = None, line: int | None = None, fix: str | None = None
    ) -> None:
        super().__init__(message, fix=fix)
        self.path = path
        self.line = line

    def __str__(self) -> str:
        where = ""
        if self.path:
            where = f"{self.path}:{self.line}: " if self.line else f"{self.path}: "
        return where + super().__str__()


class BundleNotFoundError(BundleError):
    """The bundle path does not exist."""


class NotABundleError(BundleError):
    """The path exists but is not an OKF bundle."""


class PathEscapeError(BundleError):
    """A path would resolve outside the bundle root (``..``, absolute, or a symlink leading out)."""


class ConceptNotFoundError(BundleError):
    """An id or path names no concept in the bundle."""


class CompileError(BundleError):
    """A compile cannot run (bad source folder, bad output path, ...)."""


class ConfigError(OKFError):
    """Bad configuration or arguments; the message says how to fix it."""


class ContractError(ConfigError):
    """A contract cannot be used: unreadable, not valid against its schema, or a fact that cannot be checked.

    ``problems`` holds one line per problem, each naming the fact (and field) and its fix.
    """

    def __init__(
        self, message: str, *, path: str | None = None, problems: list[str] | None = None, fix: str | None = None
    ) -> None:
        super().__init__(message, fix=fix)
        self.path = path
        self.problems = list(problems or [])

    def __str__(self) -> str:
        head = f"{self.path}: {super().__str__()}" if self.path else super().__str__()
        return "\n".join([head, *(f"  - {problem}" for problem in self.problems)])


class ProviderError(OKFError):
    """A model endpoint call failed after its retries; keeps the HTTP status (None for network errors)."""

    def __init__(
        self, message: str, *, status: int | None = None, role: str | None = None, fix: str | None = None
    ) -> None:
        super().__init__(message, fix=fix)
        self.status = status
        self.role = role


class DeadlineExceeded(ProviderError):
    """The overall deadline passed before a model call could finish.

    ``usage`` is what the call had cost by then (an ``okf.readers.base.Usage``), when the reader knows it.
    """

    usage: object | None = None


class ModelOutputError(OKFError):
    """A model reply failed validation even after the repair retry; keeps the raw reply text."""

    def __init__(self, message: str, *, raw: str = "", role: str | None = None) -> None:
        super().__init__(message)
        self.raw = raw
        self.role = role
