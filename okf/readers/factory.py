"""``make_reader``: the reader a configuration asks for (a leaf above the config and both readers)."""

from __future__ import annotations

from okf.readers.base import Reader
from okf.readers.config import ReaderConfig


def make_reader(config: ReaderConfig | None = None) -> Reader:
    """The reader a configuration asks for: an ``LLMReader``, or the offline reader when no model is set."""
    config = ReaderConfig.load() if config is None else config
    if not config.configured:
        from okf.readers.offline import OfflineReader

        return OfflineReader()
    from okf.readers.llm import LLMReader  # imported here: only configured models pull in openai

    return LLMReader(config)
