"""User-facing errors. The CLI catches `GraphragError` only, prints its message on one
line and exits non-zero; anything else is a bug and keeps its traceback."""


class GraphragError(Exception):
    """Base for every error a user can act on."""

    exit_code = 1


class ConfigError(GraphragError):
    """A setting, preset or config file is wrong."""

    exit_code = 2


class InputError(GraphragError):
    """The documents (or a path the user named) cannot be used."""

    exit_code = 3


class ModelError(GraphragError):
    """The GGUF model or the embedder cannot be loaded or used."""

    exit_code = 4


class BudgetError(GraphragError):
    """A prompt cannot fit into the model's context window."""

    exit_code = 5


class IndexStateError(GraphragError):
    """The index folder is missing, locked, or built with incompatible settings."""

    exit_code = 6


class StoreError(GraphragError):
    """The index folder cannot be written: the disk is full, the medium is read-only, or
    permission is denied. The message names the folder and what to do."""

    exit_code = 7


class InjectedFailure(GraphragError):
    """Raised on purpose (GRAPHRAG_LOCAL_FAIL_AFTER_CALLS) to test resume."""

    exit_code = 9
