"""Text analysis shared by the compiler and the readers: words and stems, key terms, the bundle vocabulary."""
