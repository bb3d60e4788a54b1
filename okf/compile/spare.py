"""A first compile's spare tree, mirrored from its side tree by another process (docs/compile.md, "Spare tree").

``okf.compile.write.start_spare`` runs this file as a script in a fresh interpreter (``python -I -S spare.py
SIDE TARGET``) once the workers have written every document's files, so the folders and hard links are made
on the second CPU while the compile renders the folder index files, the log and the manifest (0.2 to 0.3 s on
CUAD that were on the command's serial end). It imports nothing but ``os`` and ``sys``: no okf, no site.
Without a second process, ``okf.compile.write._mirror`` calls :func:`mirror_tree` in the compile's own.
"""

from __future__ import annotations

import os
import sys


def mirror_tree(src: str, dst: str) -> None:
    """Make ``dst`` (which must not exist) hold every real folder of ``src`` and a hard link of every other
    entry, parents before children (a symlinked folder is neither entered nor linked, as
    ``okf.compile.write._scan`` skips it)."""
    os.mkdir(dst)
    stack = [""]
    while stack:
        rel = stack.pop()
        with os.scandir(f"{src}/{rel}") as entries:
            for entry in entries:
                path = rel + entry.name
                if entry.is_dir():
                    if not entry.is_symlink():
                        os.mkdir(f"{dst}/{path}")
                        stack.append(path + "/")
                else:
                    os.link(f"{src}/{path}", f"{dst}/{path}")


if __name__ == "__main__":
    mirror_tree(sys.argv[1], sys.argv[2])
