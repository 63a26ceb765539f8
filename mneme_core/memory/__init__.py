"""Notes, the term index, recall and the recall log: what the companion remembers and how it finds it."""
