"""The size bounds a bundle's files keep: what okf check accepts is what okf compile writes; and the name
okf compile gives a topical group, which the offline reader knows.

One module, imported by the bundle reader, check, the compiler and the readers, so the sides cannot drift apart.
"""

from __future__ import annotations

MAX_FILE_BYTES = 10 * 1024 * 1024  # a bundle file larger than this is refused (E005)
MAX_FRONTMATTER_BYTES = 64 * 1024  # a frontmatter block larger than this is refused (E005)
MAX_TITLE_CHARS = 200  # a longer title is a warning (W135); compile cuts titles to it
# The text of one source must fit one concept file okf check accepts (its frontmatter is bounded above),
# since a section that cannot be split (one long line) becomes one concept.
MAX_SOURCE_BYTES = MAX_FILE_BYTES - MAX_FRONTMATTER_BYTES
MAX_PDF_BYTES = 200 * 1024 * 1024  # a PDF is mostly not text; its extracted text must meet MAX_SOURCE_BYTES
# Most entries one index.md lists: okf compile groups a wider folder (by topic), okf check warns past it (W120).
FANOUT = 40
# The slug of a group okf compile makes of a wide folder opens with this, then the group's key terms
# ("topic-britain-cypress-genus"): a folder so named is no folder *of* a thing whose name it holds.
TOPIC_PREFIX = "topic-"
# Characters of a concept body the judge is shown (Budgets.body_chars) and the most a compiled concept holds
# (CompileOptions.max_chars): one setting, so a judge reads every concept okf compiles whole.
JUDGE_WINDOW_CHARS = 6000
